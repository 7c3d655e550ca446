// PutItem: create or replace one item.
#include "server/ops/item_request.h"
#include "server/ops/ops.h"

namespace ddbd::server::ops {
namespace {

struct PutItemInput {
  std::string_view table_name;
  Item item;
  ReturnValues return_values = ReturnValues::kNone;
  CapacityDetail capacity = CapacityDetail::kNone;
};

Result<PutItemInput> ParsePutItem(wire::JsonObject body) {
  PutItemInput in;
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(in.table_name, ReadTableName(body, errors));
  DDBD_ASSIGN_OR_RETURN(std::optional<Item> item, ReadAttributeMap(body, "Item", "item", errors));
  DDBD_ASSIGN_OR_RETURN(in.return_values, ReadReturnValues(body, errors));
  DDBD_ASSIGN_OR_RETURN(in.capacity, ReadReturnConsumedCapacity(body, errors));
  DDBD_RETURN_IF_ERROR(ReadReturnItemCollectionMetrics(body, errors));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  DDBD_RETURN_IF_ERROR(RejectExpressions(body, {"ConditionExpression"}));
  if (in.return_values != ReturnValues::kNone && in.return_values != ReturnValues::kAllOld) {
    return Error::Validation("ReturnValues can only be ALL_OLD or NONE");
  }
  in.item = std::move(*item);
  DDBD_RETURN_IF_ERROR(CheckItemSize(in.item));
  return in;
}

}  // namespace

Result<std::string> PutItem(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(PutItemInput in, ParsePutItem(req.body));
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTable(in.table_name));
  DDBD_ASSIGN_OR_RETURN(PrimaryKey key, KeyFromItem(*table, in.item));

  DDBD_ASSIGN_OR_RETURN(storage::WriteOutcome outcome,
                        WriteOne(ctx, *table, std::move(key),
                                 [&in](const std::optional<Item>&) -> Result<std::optional<Item>> {
                                   return std::optional<Item>(in.item);
                                 },
                                 in.return_values == ReturnValues::kAllOld));
  return RenderWriteResponse(in.table_name, outcome, in.return_values, in.capacity);
}

}  // namespace ddbd::server::ops
