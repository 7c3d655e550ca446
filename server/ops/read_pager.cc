// The Query/Scan page loop.
#include "server/ops/read_pager.h"

#include "expressions/evaluator.h"
#include "server/wire/attribute_value_json.h"
#include "storage/key_codec.h"

namespace ddbd::server::ops {
namespace {

constexpr size_t kMaxPageBytes = 1024 * 1024;

Select ParseSelect(std::string_view text) {
  if (text == "ALL_PROJECTED_ATTRIBUTES") return Select::kAllProjectedAttributes;
  if (text == "SPECIFIC_ATTRIBUTES") return Select::kSpecificAttributes;
  if (text == "COUNT") return Select::kCount;
  return Select::kAllAttributes;
}

// The table key of an item: what LastEvaluatedKey holds.
Item KeyAttributes(const TableDef& table, const Item& item) {
  Item key;
  key.emplace(table.partition_key.name, item.at(table.partition_key.name));
  if (table.sort_key) key.emplace(table.sort_key->name, item.at(table.sort_key->name));
  return key;
}

}  // namespace

Result<ReadOptions> ReadReadOptions(wire::JsonObject body, const ExpressionMembers& accepted,
                                    wire::ConstraintErrors& errors) {
  ReadOptions options;
  DDBD_ASSIGN_OR_RETURN(options.table_name, ReadTableName(body, errors));
  DDBD_ASSIGN_OR_RETURN(options.index_name, wire::GetString(body, "IndexName"));
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
  options.select = select ? ParseSelect(*select)
                          : (projected ? Select::kSpecificAttributes : Select::kAllAttributes);
  // Texts unverified against DynamoDB; kept here in one place.
  if (options.select == Select::kSpecificAttributes && !projected) {
    return Error::Validation("Must specify the ProjectionExpression or AttributesToGet when "
                             "choosing to get SPECIFIC_ATTRIBUTES");
  }
  if (projected && options.select != Select::kSpecificAttributes) {
    return Error::Validation("Cannot specify the ProjectionExpression when choosing to get " +
                             std::string(*select));
  }
  return options;
}

Status CheckIndex(const TableDef&, const ReadOptions& options) {
  if (!options.index_name) return OkStatus();
  return Error::Validation("The table does not have the specified index: " +
                           std::string(*options.index_name));
}

Result<std::string> StartKeyFor(const TableDef& table, const Item& start_key) {
  Result<PrimaryKey> key = KeyFromParameter(table, start_key);
  if (!key.ok()) {
    return Error::Validation("The provided starting key is invalid: " + key.error().message());
  }
  return storage::ItemKey(table.id, *key);
}

Result<std::string> ReadPage(const TableDef& table, storage::ItemCursor& cursor,
                             const ReadOptions& options) {
  const auto& expr = options.expressions;
  wire::JsonWriter out;
  out.BeginObject();
  if (options.select != Select::kCount) out.Key("Items").BeginArray();
  int64_t scanned = 0, count = 0;
  size_t bytes_read = 0;
  std::optional<Item> last_evaluated;
  for (; cursor.Valid(); cursor.Next()) {
    DDBD_ASSIGN_OR_RETURN(Item item, cursor.item());
    ++scanned;
    bytes_read += ItemSize(item);
    const bool page_full = (options.limit && scanned >= *options.limit) ||
                           bytes_read >= kMaxPageBytes;
    if (!expr.filter || expressions::Matches(*expr.filter, item, expr.bindings)) {
      ++count;
      if (options.select != Select::kCount) {
        wire::WriteAttributeMap(out, expr.projection ? expressions::Project(item, *expr.projection)
                                                     : item);
      }
    }
    if (page_full) {
      last_evaluated = KeyAttributes(table, item);
      break;
    }
  }
  DDBD_RETURN_IF_ERROR(cursor.status());
  if (options.select != Select::kCount) out.EndArray();
  out.Key("Count").Int(count);
  out.Key("ScannedCount").Int(scanned);
  if (last_evaluated) {
    out.Key("LastEvaluatedKey");
    wire::WriteAttributeMap(out, *last_evaluated);
  }
  if (options.capacity != CapacityDetail::kNone) {
    out.Key("ConsumedCapacity");
    WriteConsumedCapacity(out, options.capacity, options.table_name,
                          ReadUnits(bytes_read, options.consistent_read), false);
  }
  out.EndObject();
  return out.Take();
}

}  // namespace ddbd::server::ops
