// Vector index entries and write checks (spec/vector-search.md §5).
#include "index/vector_entries.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "model/number.h"
#include "vector/entry_codec.h"

namespace ddbd::index {
namespace {

// The two sentences DynamoDB puts before most vector write errors (its 2026-08-19 texts).
constexpr std::string_view kNotValid =
    "One or more parameter values are not valid. One or more parameter values were invalid . ";

std::string TypeToken(const AttributeValue& value) { return std::string(TypeName(value.type())); }

// Java's BigDecimal.stripTrailingZeros().toString() of a number too large for a float, as
// DynamoDB echoes it: "3.5E+38", "-1.3E+40", "4E+38".
std::string ScientificText(std::string_view canonical) {
  Result<Number> number = Number::Parse(canonical);
  if (!number.ok()) return std::string(canonical);
  const std::string& digits = number->digits();
  std::string text = number->negative() ? "-" : "";
  text += digits.substr(0, 1);
  if (digits.size() > 1) text += "." + digits.substr(1);
  const int exponent = number->adjusted_exponent();
  text += exponent >= 0 ? "E+" : "E";
  text += std::to_string(exponent);
  return text;
}

Status CheckVector(const IndexDef& index, const AttributeValue& value) {
  const VectorSpec& spec = *index.vector;
  const std::string& attribute = spec.attribute;
  if (value.type() != AttributeType::kL) {
    return Error::Validation(std::string(kNotValid) + "Invalid type for parameter " + attribute +
                             ", Expected: L, Actual: " + TypeToken(value) +
                             ". IndexName: " + index.name);
  }
  const AttributeList& elements = value.list();
  if (elements.size() != spec.dimensions) {
    return Error::Validation(std::string(kNotValid) + "Invalid size for parameter " + attribute +
                             ", Expected: " + std::to_string(spec.dimensions) + ", Actual: " +
                             std::to_string(elements.size()) + ". IndexName: " + index.name);
  }
  for (size_t i = 0; i < elements.size(); ++i) {
    const std::string position = attribute + "[" + std::to_string(i) + "]";
    if (elements[i].type() != AttributeType::kN) {
      return Error::Validation(
          "One or more parameter values were invalid. Invalid type for parameter " + position +
          ", Expected: 32-bit floating point number, Actual: " + TypeToken(elements[i]) +
          ". IndexName: " + index.name);
    }
    if (!ToFloat32(elements[i].scalar())) {
      return Error::Validation(std::string(kNotValid) + "Invalid value for parameter " + position +
                               ", Value: " + ScientificText(elements[i].scalar()) +
                               " is outside valid range [-3.4028235E38, 3.4028235E38]. "
                               "IndexName: " +
                               index.name);
    }
  }
  return OkStatus();
}

Status CheckSchemaAttribute(const IndexDef& index, const KeyElement& element,
                            const AttributeValue& value, bool is_hash) {
  if (value.type() != ToAttributeType(element.type)) {
    return Error::Validation(
        "One or more parameter values were invalid. Attribute '" + element.name +
        "' type mismatch. Expected: " + std::string(KeyAttributeTypeName(element.type)) +
        ", Actual: " + TypeToken(value) + ". IndexName: " + index.name);
  }
  if (!is_hash || value.type() == AttributeType::kN) return OkStatus();
  if (value.scalar().empty()) {
    return Error::Validation(
        std::string("One or more parameter values are not valid. A value specified for a "
                    "secondary index key is not supported. The AttributeValue for a key "
                    "attribute cannot contain an empty ") +
        (value.type() == AttributeType::kB ? "binary" : "string") +
        " value. IndexName: " + index.name + ", IndexKey: " + element.name);
  }
  if (value.scalar().size() > 2048) {  // the table-key text; uncaptured for vector indexes
    return Error::Validation(
        "One or more parameter values were invalid: Size of hashkey has "
        "exceeded the maximum size limit of2048 bytes");
  }
  return OkStatus();
}

}  // namespace

std::optional<float> ToFloat32(std::string_view canonical_number) {
  // strtof rounds to nearest; it overflows (to infinity) only beyond FLT_MAX's rounding
  // interval, which is exactly where DynamoDB's range check fails. Underflow yields 0 or a
  // subnormal, which DynamoDB accepts.
  std::string text(canonical_number);
  const float value = std::strtof(text.c_str(), nullptr);
  if (!std::isfinite(value)) return std::nullopt;
  return value;
}

std::optional<std::vector<float>> VectorOf(const VectorSpec& spec, const AttributeValue& value) {
  if (value.type() != AttributeType::kL || value.list().size() != spec.dimensions) {
    return std::nullopt;
  }
  std::vector<float> vector;
  vector.reserve(spec.dimensions);
  for (const auto& element : value.list()) {
    if (element.type() != AttributeType::kN) return std::nullopt;
    std::optional<float> f = ToFloat32(element.scalar());
    if (!f) return std::nullopt;
    vector.push_back(*f);
  }
  return vector;
}

Status CheckVectorAttributes(const TableDef& table, const AttributeMap& item,
                             const std::function<bool(std::string_view)>& sets) {
  if (!table.HasVectorIndexes()) return OkStatus();  // every write passes here
  std::vector<const IndexDef*> vector_indexes;
  for (const auto& index : table.indexes) {
    if (index.IsVector()) vector_indexes.push_back(&index);
  }
  std::sort(vector_indexes.begin(), vector_indexes.end(),
            [](const IndexDef* a, const IndexDef* b) { return a->name < b->name; });
  for (const IndexDef* index : vector_indexes) {
    const VectorSpec& spec = *index->vector;
    if (auto it = item.find(spec.attribute); it != item.end() && sets(spec.attribute)) {
      DDBD_RETURN_IF_ERROR(CheckVector(*index, it->second));
    }
    auto check = [&](const KeyElement& element, bool is_hash) -> Status {
      auto it = item.find(element.name);
      if (it == item.end() || !sets(element.name)) return OkStatus();
      return CheckSchemaAttribute(*index, element, it->second, is_hash);
    };
    for (const auto& hash : index->partition_keys) DDBD_RETURN_IF_ERROR(check(hash, true));
    for (const auto& filter : spec.filters) DDBD_RETURN_IF_ERROR(check(filter, false));
  }
  return OkStatus();
}

bool VectorProjects(const TableDef& table, const IndexDef& index, std::string_view attribute) {
  if (index.projection == ProjectionType::kAll) return true;
  if (table.IsKeyAttribute(attribute) || index.HasKeyAttribute(attribute) ||
      attribute == index.vector->attribute) {
    return true;
  }
  for (const auto& filter : index.vector->filters) {
    if (filter.name == attribute) return true;
  }
  return index.projection == ProjectionType::kInclude &&
         std::find(index.non_key_attributes.begin(), index.non_key_attributes.end(), attribute) !=
             index.non_key_attributes.end();
}

size_t VectorEntrySize(const IndexDef& index, const AttributeMap& projected) {
  const VectorSpec& spec = *index.vector;
  size_t size = 4 * static_cast<size_t>(spec.dimensions) + spec.attribute.size();
  for (const auto& [name, value] : projected) {
    if (name != spec.attribute) size += name.size() + ValueSize(value);
  }
  return size;
}

std::optional<storage::IndexEntry> VectorEntryFor(const TableDef& table, const IndexDef& index,
                                                  const AttributeMap& item) {
  const VectorSpec& spec = *index.vector;
  auto vector_it = item.find(spec.attribute);
  if (vector_it == item.end()) return std::nullopt;
  std::optional<std::vector<float>> vector = VectorOf(spec, vector_it->second);
  if (!vector) return std::nullopt;
  storage::IndexEntry entry;
  for (const auto& hash : index.partition_keys) {
    auto it = item.find(hash.name);
    if (it == item.end() || it->second.type() != ToAttributeType(hash.type) ||
        (hash.type != KeyAttributeType::kN && it->second.scalar().empty())) {
      return std::nullopt;
    }
    entry.partition.push_back(it->second);
  }
  entry.index = &index;
  entry.table_key = KeyOf(table, item);
  for (const auto& [name, value] : item) {
    if (name == spec.attribute || !VectorProjects(table, index, name)) continue;
    entry.projected.emplace(name, value);
  }
  entry.projected_size = VectorEntrySize(index, entry.projected);
  entry.projected.emplace(spec.attribute, AttributeValue::Binary(vector::EncodeFloats(*vector)));
  return entry;
}

std::map<std::string, int64_t> VectorWriteBytes(const TableDef& table,
                                                const std::optional<Item>& old_item,
                                                const std::optional<Item>& new_item) {
  constexpr int64_t kMinimum = 1024;
  std::map<std::string, int64_t> metered;
  if (old_item && new_item && *old_item == *new_item) return metered;
  for (const auto& index : table.indexes) {
    if (!index.IsVector()) continue;
    std::optional<storage::IndexEntry> before, after;
    if (old_item) before = VectorEntryFor(table, index, *old_item);
    if (new_item) after = VectorEntryFor(table, index, *new_item);
    auto size = [&](const storage::IndexEntry& entry) {
      return std::max(kMinimum, static_cast<int64_t>(entry.projected_size));
    };
    if (before && after) {
      if (before->partition == after->partition) {
        if (before->projected == after->projected) continue;
        metered[index.name] = std::max(size(*before), size(*after));
      } else {
        metered[index.name] = size(*before) + size(*after);
      }
    } else if (before || after) {
      metered[index.name] = size(before ? *before : *after);
    }
  }
  return metered;
}

std::string FormatFloat32(float value) {
  if (value == 0) return "0.0";  // also -0
  // The shortest digits that read back as `value` (scientific form), then written out plainly.
  char buffer[64];
  auto [end, ec] =
      std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  const std::string_view text(buffer, ec == std::errc() ? static_cast<size_t>(end - buffer) : 0);
  const size_t e = text.find('e');
  if (e == std::string_view::npos) return "0.0";
  const bool negative = text[0] == '-';
  std::string digits;
  for (char c : text.substr(negative ? 1 : 0, e - (negative ? 1 : 0))) {
    if (c != '.') digits.push_back(c);
  }
  const int exponent = std::stoi(std::string(text.substr(e + 1)));
  std::string plain = negative ? "-" : "";
  if (exponent < 0) {
    plain += "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
  } else if (static_cast<size_t>(exponent) + 1 >= digits.size()) {
    plain += digits + std::string(static_cast<size_t>(exponent) + 1 - digits.size(), '0') + ".0";
  } else {
    plain += digits.substr(0, static_cast<size_t>(exponent) + 1) + "." +
             digits.substr(static_cast<size_t>(exponent) + 1);
  }
  return plain;
}

AttributeValue VectorValue(const std::vector<float>& vector) {
  AttributeList elements;
  elements.reserve(vector.size());
  for (float f : vector) elements.push_back(AttributeValue::NumberText(FormatFloat32(f)));
  return AttributeValue::List(std::move(elements));
}

}  // namespace ddbd::index
