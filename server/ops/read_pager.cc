// The Query/Scan page loop.
#include "server/ops/read_pager.h"

#include <algorithm>

#include "expressions/evaluator.h"
#include "index/index_entries.h"
#include "storage/stored_item.h"
#include "wire/attribute_value_json.h"
#include "wire/constraint_errors.h"

namespace ddbd::server::ops {
namespace {

constexpr size_t kMaxPageBytes = 1024 * 1024;

Select ParseSelect(std::string_view text) {
  if (text == "ALL_PROJECTED_ATTRIBUTES") return Select::kAllProjectedAttributes;
  if (text == "SPECIFIC_ATTRIBUTES") return Select::kSpecificAttributes;
  if (text == "COUNT") return Select::kCount;
  return Select::kAllAttributes;
}

// The key of an item as LastEvaluatedKey holds it: the table key, plus the index key when
// reading an index.
Item KeyAttributes(const ReadTarget& target, const Item& item) {
  Item key;
  auto add = [&](const KeyElement& element) {
    auto it = item.find(element.name);
    if (it != item.end()) key.insert_or_assign(element.name, it->second);
  };
  add(target.table->partition_key);
  if (target.table->sort_key) add(*target.table->sort_key);
  if (target.index) {
    for (const auto& element : target.index->partition_keys) add(element);
    for (const auto& element : target.index->sort_keys) add(element);
  }
  return key;
}

// Whether an LSI read must fetch the table's item: the index lacks attributes the read
// returns.
bool NeedsTableItem(const ReadTarget& target, const ReadOptions& options) {
  if (!target.index || !target.index->local || target.index->projection == ProjectionType::kAll) {
    return false;
  }
  if (options.select == Select::kAllAttributes) return true;
  if (!options.expressions.projection) return false;
  for (const auto& path : *options.expressions.projection) {
    if (!index::Projects(*target.table, *target.index, path[0].name)) return true;
  }
  return false;
}

}  // namespace

Result<ReadOptions> ReadReadOptions(wire::JsonObject body, const ExpressionMembers& accepted,
                                    wire::ConstraintErrors& errors) {
  ReadOptions options;
  DDBD_ASSIGN_OR_RETURN(options.table_name, ReadTableName(body, errors));
  DDBD_ASSIGN_OR_RETURN(auto index_name, wire::GetString(body, "IndexName"));
  if (index_name) options.index_name = std::string(*index_name);
  DDBD_ASSIGN_OR_RETURN(options.limit, wire::GetLong(body, "Limit"));
  if (options.limit && *options.limit < 1) {
    errors.ValueAtLeast(std::to_string(*options.limit), "limit", 1);
  }
  DDBD_ASSIGN_OR_RETURN(auto select, ReadEnum(body, "Select", "select",
                                              {"ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES",
                                               "SPECIFIC_ATTRIBUTES", "COUNT"},
                                              errors));
  DDBD_ASSIGN_OR_RETURN(auto consistent, wire::GetBool(body, "ConsistentRead"));
  options.consistent_read = consistent.value_or(false);
  DDBD_ASSIGN_OR_RETURN(options.capacity, ReadReturnConsumedCapacity(body, errors));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  DDBD_ASSIGN_OR_RETURN(options.expressions, ReadExpressions(body, accepted));

  const bool projected = options.expressions.projection.has_value();
  options.explicit_select = select.has_value();
  options.select = select ? ParseSelect(*select)
                          : (projected ? Select::kSpecificAttributes : Select::kAllAttributes);
  // DynamoDB words these for AttributesToGet or ProjectionExpression, whichever was sent;
  // Query's carry "1 validation error detected: ", Scan's do not.
  // Pinned by: test_start_keys.py::test_select_conflicts
  const std::string prefix = accepted.key_condition ? "1 validation error detected: " : "";
  if (options.select == Select::kSpecificAttributes && !projected) {
    return Error::Validation(prefix +
                             "Must specify the AttributesToGet or ProjectionExpression "
                             "when choosing to get SPECIFIC_ATTRIBUTES");
  }
  if (projected && options.select != Select::kSpecificAttributes) {
    const char* member =
        wire::Member(body, "AttributesToGet") ? "AttributesToGet" : "ProjectionExpression";
    const char* what = options.select == Select::kCount ? "only the Count"
                       : options.select == Select::kAllProjectedAttributes
                           ? "ALL_PROJECTED_ATTRIBUTES"
                           : "ALL_ATTRIBUTES";
    return Error::Validation(prefix + "Cannot specify the " + member + " when choosing to get " +
                             what);
  }
  return options;
}

std::vector<KeyElement> ReadTarget::partition_keys() const {
  if (index) return index->partition_keys;
  return {table->partition_key};
}

std::vector<KeyElement> ReadTarget::sort_keys() const {
  if (index) return index->sort_keys;
  if (table->sort_key) return {*table->sort_key};
  return {};
}

Result<ReadTarget> ResolveTarget(const TableDef& table, ReadOptions& options, bool query) {
  ReadTarget target{&table, nullptr};
  if (!options.index_name) {
    if (options.select == Select::kAllProjectedAttributes) {
      return Error::Validation(std::string(query ? "1 validation error detected: " : "") +
                               "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an "
                               "IndexName");
    }
    return target;
  }
  target.index = table.FindIndex(*options.index_name);
  if (!target.index || target.index->status == IndexStatus::kDeleting) {
    return Error::Validation("The table does not have the specified index: " +
                             std::string(*options.index_name));
  }
  const IndexDef& index = *target.index;
  if (!options.explicit_select && !options.expressions.projection) {
    options.select = Select::kAllProjectedAttributes;
  }
  if (!index.local && options.consistent_read) {
    return Error::Validation("Consistent reads are not supported on global secondary indexes");
  }
  if (index.IsVector()) {  // read only through SearchVectors; DynamoDB's two texts differ
    return Error::Validation(query ? "Query operation not supported on this index type."
                                   : "Scan operation not supported on this index type");
  }
  if (index.status != IndexStatus::kActive) {
    return Error::Validation("Cannot read from backfilling global secondary index: " + index.name);
  }
  if (!index.local && options.select == Select::kAllAttributes && options.explicit_select &&
      index.projection != ProjectionType::kAll) {
    return Error::Validation(
        "One or more parameter values were invalid: Select type "
        "ALL_ATTRIBUTES is not supported for global secondary index " +
        index.name + " because its projection type is not ALL");
  }
  if (!index.local && options.expressions.projection) {
    // A GSI read cannot fetch from the table (an LSI read can).
    // Pinned by: test_indexes.py::test_projecting_attributes_a_gsi_does_not_hold_is_refused
    std::vector<std::string> missing;
    for (const expressions::ResolvedPath& path : *options.expressions.projection) {
      const std::string& name = path[0].name;
      if (!index::Projects(table, index, name) &&
          std::find(missing.begin(), missing.end(), name) == missing.end()) {
        missing.push_back(name);
      }
    }
    if (!missing.empty()) {
      return Error::Validation(
          "One or more parameter values were invalid: Global secondary index " + index.name +
          " does not project " + wire::JavaList(missing));
    }
  }
  return target;
}

Status CheckStartKeySize(const ReadTarget& target, const Item& start_key, bool query) {
  std::vector<std::string_view> names{target.table->partition_key.name};
  if (target.table->sort_key) names.push_back(target.table->sort_key->name);
  if (target.index) {
    for (const auto* keys : {&target.index->partition_keys, &target.index->sort_keys}) {
      for (const KeyElement& element : *keys) {
        if (std::find(names.begin(), names.end(), element.name) == names.end()) {
          names.push_back(element.name);
        }
      }
    }
  }
  if (start_key.size() == names.size()) return OkStatus();
  if (!query && !target.index) {
    return Error::Validation(
        "The provided starting key is invalid: The provided key element "
        "does not match the schema");
  }
  return Error::Validation("The provided starting key is invalid");
}

Status CheckStartKeyElement(const Item& start_key, const KeyElement& element) {
  auto it = start_key.find(element.name);
  if (it == start_key.end()) return Error::Validation("The provided starting key is invalid");
  if (it->second.type() != ToAttributeType(element.type)) {
    return Error::Validation("The provided key element does not match the schema");
  }
  return OkStatus();
}

Result<storage::StartKey> StartKeyFor(const ReadTarget& target, const Item& start_key) {
  const TableDef& table = *target.table;
  auto invalid = [] {
    return Error::Validation(
        "The provided starting key is invalid: The provided key element "
        "does not match the schema");
  };
  Item table_key;
  for (const KeyElement* element :
       {&table.partition_key, table.sort_key ? &*table.sort_key : nullptr}) {
    if (!element) continue;
    auto it = start_key.find(element->name);
    if (it == start_key.end()) return invalid();
    table_key.emplace(it->first, it->second);
  }
  Result<PrimaryKey> key = KeyFromParameter(table, table_key);
  if (!key.ok()) {
    return Error::Validation("The provided starting key is invalid: " + key.error().message());
  }
  storage::StartKey start{std::move(*key), {}, {}};
  if (!target.index) return start;
  for (auto [keys, values] : {std::pair{&target.index->partition_keys, &start.index_partition},
                              {&target.index->sort_keys, &start.index_sort}}) {
    for (const KeyElement& element : *keys) {
      DDBD_RETURN_IF_ERROR(CheckStartKeyElement(start_key, element));
      values->push_back(start_key.at(element.name));
    }
  }
  return start;
}

std::optional<storage::EntryOverlay> LaggedEntries(OpContext& ctx, const ReadTarget& target) {
  const index::GsiLag* lag = ctx.service().gsi_lag();
  if (!lag || !target.index || target.index->local) return std::nullopt;
  return lag->Overlay(target.index->id);
}

Result<PageOutput> ReadPage(storage::Database& db, const ReadTarget& target,
                            storage::ItemCursor& cursor, const ReadOptions& options) {
  const bool fetch = NeedsTableItem(target, options);
  const auto& expr = options.expressions;
  // Items returned as stored need no decoding (the key of a page's last one aside).
  const bool whole_as_stored =
      !fetch && !expr.filter && !expr.projection && options.select != Select::kCount;
  PageOutput page;
  uint64_t& bytes_read = page.bytes_read;
  for (; cursor.Valid(); cursor.Next()) {
    ++page.scanned;
    const std::optional<std::string_view> stored =
        whole_as_stored ? cursor.stored_encoding() : std::nullopt;
    std::optional<Item> item;
    if (stored) {
      DDBD_ASSIGN_OR_RETURN(size_t size, storage::StoredItemSize(*stored));
      bytes_read += size;
    } else {
      DDBD_ASSIGN_OR_RETURN(item, cursor.item());
      if (fetch) {
        DDBD_ASSIGN_OR_RETURN(item, db.GetItem(*target.table, KeyOf(*target.table, *item)));
        if (!item) continue;  // deleted since the index entry was read
      }
      bytes_read += ItemSize(*item);
    }
    const bool page_full =
        (options.limit && page.scanned >= *options.limit) || bytes_read >= kMaxPageBytes;
    if (page_full) {
      if (!item) {
        DDBD_ASSIGN_OR_RETURN(item, cursor.item());
      }
      page.last_evaluated_key = KeyAttributes(target, *item);
    }
    if (stored) {
      ++page.count;
      page.items.emplace_back(std::in_place_type<std::string>, *stored);
    } else if (!expr.filter || expressions::Matches(*expr.filter, *item, expr.bindings)) {
      ++page.count;
      if (options.select != Select::kCount) {
        page.items.emplace_back(expr.projection ? expressions::Project(*item, *expr.projection)
                                                : std::move(*item));
      }
    }
    if (page_full) break;
  }
  DDBD_RETURN_IF_ERROR(cursor.status());
  // A read of an index consumes the index's capacity, not the table's.
  const double units = ReadUnits(bytes_read, options.consistent_read);
  if (!target.index) {
    page.use.table_units = units;
  } else {
    (target.index->local ? page.use.local_indexes : page.use.global_indexes)[target.index->name] =
        units;
  }
  return page;
}

Status WritePageItems(wire::JsonWriter& out, const std::vector<PageItem>& items) {
  wire::JsonAttributeSink sink(out);
  for (const PageItem& item : items) {
    if (const auto* decoded = std::get_if<Item>(&item)) {
      wire::WriteAttributeMap(out, *decoded);
      continue;
    }
    out.BeginObject();
    DDBD_RETURN_IF_ERROR(storage::VisitStoredItem(std::get<std::string>(item), sink));
    out.EndObject();
  }
  return OkStatus();
}

Result<std::string> RenderPage(const PageOutput& page, const ReadOptions& options) {
  wire::JsonWriter out;
  out.BeginObject();
  if (options.select != Select::kCount) {
    out.Key("Items").BeginArray();
    DDBD_RETURN_IF_ERROR(WritePageItems(out, page.items));
    out.EndArray();
  }
  out.Key("Count").Int(page.count);
  out.Key("ScannedCount").Int(page.scanned);
  if (page.last_evaluated_key) {
    out.Key("LastEvaluatedKey");
    wire::WriteAttributeMap(out, *page.last_evaluated_key);
  }
  if (options.capacity != CapacityDetail::kNone) {
    out.Key("ConsumedCapacity");
    WriteConsumedCapacity(out, options.capacity, options.table_name, page.use, false);
  }
  out.EndObject();
  return out.Take();
}

}  // namespace ddbd::server::ops
