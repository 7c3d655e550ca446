// Index entry derivation and index-key checks.
#include "index/index_entries.h"

#include <algorithm>
#include <cmath>

#include "index/vector_entries.h"

namespace ddbd::index {
namespace {

constexpr size_t kMaxPartitionKeyBytes = 2048;
constexpr size_t kMaxSortKeyBytes = 1024;

// The value of index key `key` in `item`, or nullptr when the item is not in the index: the
// attribute is missing, of another type, or a value DynamoDB refuses as a key (an empty
// string or binary, or over the key-size limits). Writes refuse such values
// (CheckIndexKeys); items written before the index existed are left out of it.
const AttributeValue* KeyValue(const AttributeMap& item, const KeyElement& key, bool is_partition) {
  auto it = item.find(key.name);
  if (it == item.end() || it->second.type() != ToAttributeType(key.type)) return nullptr;
  if (it->second.type() == AttributeType::kN) return &it->second;
  const size_t size = it->second.scalar().size();
  if (size == 0 || size > (is_partition ? kMaxPartitionKeyBytes : kMaxSortKeyBytes)) return nullptr;
  return &it->second;
}

Status CheckOne(const IndexDef& index, const KeyElement& key, const AttributeMap& item,
                bool is_partition) {
  auto it = item.find(key.name);
  if (it == item.end()) return OkStatus();  // sparse: the item is just not in the index
  const AttributeValue& value = it->second;
  if (value.type() != ToAttributeType(key.type)) {
    return Error::Validation(
        "One or more parameter values were invalid: Type mismatch for Index "
        "Key " +
        key.name + " Expected: " + std::string(KeyAttributeTypeName(key.type)) +
        " Actual: " + std::string(TypeName(value.type())) + " IndexName: " + index.name);
  }
  if (value.type() == AttributeType::kN) return OkStatus();
  if (value.scalar().empty()) {
    return Error::Validation(
        "One or more parameter values are not valid. A value specified for a "
        "secondary index key is not supported. The AttributeValue for a key "
        "attribute cannot contain an empty string value. IndexName: " +
        index.name + ", IndexKey: " + key.name);
  }
  // Unverified texts for index keys: DynamoDB's table-key messages are reused.
  if (is_partition && value.scalar().size() > kMaxPartitionKeyBytes) {
    return Error::Validation(
        "One or more parameter values were invalid: Size of hashkey has "
        "exceeded the maximum size limit of2048 bytes");
  }
  if (!is_partition && value.scalar().size() > kMaxSortKeyBytes) {
    return Error::Validation(
        "One or more parameter values were invalid: Aggregated size of all "
        "range keys has exceeded the size limit of 1024 bytes");
  }
  return OkStatus();
}

}  // namespace

bool Projects(const TableDef& table, const IndexDef& index, std::string_view attribute) {
  if (index.IsVector()) return VectorProjects(table, index, attribute);
  if (index.projection == ProjectionType::kAll) return true;
  if (table.IsKeyAttribute(attribute) || index.HasKeyAttribute(attribute)) return true;
  return index.projection == ProjectionType::kInclude &&
         std::find(index.non_key_attributes.begin(), index.non_key_attributes.end(), attribute) !=
             index.non_key_attributes.end();
}

Item Project(const TableDef& table, const IndexDef& index, const AttributeMap& item) {
  if (index.projection == ProjectionType::kAll && !index.IsVector()) return Item(item);
  Item projected;
  for (const auto& [name, value] : item) {
    if (Projects(table, index, name)) projected.emplace(name, value);
  }
  return projected;
}

std::optional<storage::IndexEntry> EntryFor(const TableDef& table, const IndexDef& index,
                                            const AttributeMap& item, bool with_projection) {
  if (index.IsVector()) return VectorEntryFor(table, index, item);
  storage::IndexEntry entry;
  for (const auto& key : index.partition_keys) {
    const AttributeValue* value = KeyValue(item, key, /*is_partition=*/true);
    if (!value) return std::nullopt;
    entry.partition.push_back(*value);
  }
  for (const auto& key : index.sort_keys) {
    const AttributeValue* value = KeyValue(item, key, /*is_partition=*/false);
    if (!value) return std::nullopt;
    entry.sort.push_back(*value);
  }
  entry.index = &index;
  entry.table_key = KeyOf(table, item);
  if (index.projection == ProjectionType::kAll) {
    entry.projected_size = ItemSize(item);
  } else if (with_projection) {
    entry.projected = Project(table, index, item);
    entry.projected_size = ItemSize(entry.projected);
  } else {
    for (const auto& [name, value] : item) {
      if (Projects(table, index, name)) entry.projected_size += name.size() + ValueSize(value);
    }
  }
  return entry;
}

bool SameProjection(const TableDef& table, const IndexDef& index, const AttributeMap& before,
                    const AttributeMap& after) {
  if (index.projection == ProjectionType::kAll && !index.IsVector()) return before == after;
  size_t projected_before = 0;
  for (const auto& [name, value] : before) {
    if (!Projects(table, index, name)) continue;
    ++projected_before;
    auto it = after.find(name);
    if (it == after.end() || !(it->second == value)) return false;
  }
  size_t projected_after = 0;
  for (const auto& [name, value] : after) projected_after += Projects(table, index, name) ? 1 : 0;
  return projected_before == projected_after;
}

Status CheckIndexKeys(const TableDef& table, const AttributeMap& item) {
  for (const auto& index : table.indexes) {
    if (index.IsVector()) continue;  // CheckVectorAttributes
    for (const auto& key : index.partition_keys)
      DDBD_RETURN_IF_ERROR(CheckOne(index, key, item, true));
    for (const auto& key : index.sort_keys) DDBD_RETURN_IF_ERROR(CheckOne(index, key, item, false));
  }
  return OkStatus();
}

IndexWriteUnits IndexWriteCapacity(const TableDef& table, const std::optional<Item>& old_item,
                                   const std::optional<Item>& new_item) {
  IndexWriteUnits units;
  if (old_item && new_item && *old_item == *new_item) return units;
  auto write_units = [](const storage::IndexEntry& entry) {
    return std::max(1.0, std::ceil(static_cast<double>(entry.projected_size) / 1024));
  };
  for (const auto& index : table.indexes) {
    if (index.IsVector() || index.status == IndexStatus::kDeleting) continue;
    std::optional<storage::IndexEntry> before, after;
    if (old_item) before = EntryFor(table, index, *old_item, /*with_projection=*/false);
    if (new_item) after = EntryFor(table, index, *new_item, /*with_projection=*/false);
    double cost = 0;
    if (before && after) {
      if (before->partition != after->partition || before->sort != after->sort) {
        cost = write_units(*before) + write_units(*after);
      } else if (!SameProjection(table, index, *old_item, *new_item)) {
        cost = write_units(*after);
      }
    } else if (before || after) {
      cost = write_units(before ? *before : *after);
    }
    if (cost > 0) (index.local ? units.local : units.global)[index.name] = cost;
  }
  return units;
}

}  // namespace ddbd::index
