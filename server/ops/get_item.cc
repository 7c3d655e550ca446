// GetItem: read one item by its primary key.
#include "expressions/evaluator.h"
#include "server/ops/item_request.h"
#include "server/ops/ops.h"
#include "server/wire/attribute_value_json.h"

namespace ddbd::server::ops {
namespace {

struct GetItemInput {
  std::string_view table_name;
  Item key;
  ExpressionInputs expressions;
  bool consistent_read = false;
  CapacityDetail capacity = CapacityDetail::kNone;
};

Result<GetItemInput> ParseGetItem(wire::JsonObject body) {
  GetItemInput in;
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(in.table_name, ReadTableName(body, errors));
  DDBD_ASSIGN_OR_RETURN(std::optional<Item> key, ReadAttributeMap(body, "Key", "key", errors));
  DDBD_ASSIGN_OR_RETURN(std::optional<bool> consistent, wire::GetBool(body, "ConsistentRead"));
  DDBD_ASSIGN_OR_RETURN(in.capacity, ReadReturnConsumedCapacity(body, errors));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  DDBD_ASSIGN_OR_RETURN(in.expressions, ReadExpressions(body, {.projection = true}));
  in.key = std::move(*key);
  in.consistent_read = consistent.value_or(false);
  return in;
}

}  // namespace

Result<std::string> GetItem(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(GetItemInput in, ParseGetItem(req.body));
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTable(in.table_name));
  DDBD_ASSIGN_OR_RETURN(PrimaryKey key, KeyFromParameter(*table, in.key));
  DDBD_ASSIGN_OR_RETURN(std::optional<Item> item, ctx.db().GetItem(*table, key));

  wire::JsonWriter out;
  out.BeginObject();
  if (item) {
    out.Key("Item");
    if (in.expressions.projection) {
      wire::WriteAttributeMap(out, expressions::Project(*item, *in.expressions.projection));
    } else {
      wire::WriteAttributeMap(out, *item);
    }
  }
  if (in.capacity != CapacityDetail::kNone) {
    out.Key("ConsumedCapacity");
    WriteConsumedCapacity(out, in.capacity, in.table_name,
                          ReadUnits(item ? ItemSize(*item) : 0, in.consistent_read), false);
  }
  out.EndObject();
  return out.Take();
}

}  // namespace ddbd::server::ops
