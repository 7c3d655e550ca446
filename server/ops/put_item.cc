// PutItem: create or replace one item, optionally under a ConditionExpression.
#include "server/ops/item_request.h"
#include "server/ops/ops.h"

namespace ddbd::server::ops {
namespace {

struct PutItemInput {
  std::string_view table_name;
  Item item;
  ExpressionInputs expressions;
  ReturnValues return_values = ReturnValues::kNone;
  bool return_old_on_condition_failure = false;
  CapacityDetail capacity = CapacityDetail::kNone;
};

Result<PutItemInput> ParsePutItem(wire::JsonObject body) {
  PutItemInput in;
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(in.table_name, ReadTableName(body, errors));
  DDBD_ASSIGN_OR_RETURN(std::optional<Item> item, ReadAttributeMap(body, "Item", "item", errors));
  DDBD_ASSIGN_OR_RETURN(in.return_values, ReadReturnValues(body, errors));
  DDBD_ASSIGN_OR_RETURN(in.capacity, ReadReturnConsumedCapacity(body, errors));
  DDBD_ASSIGN_OR_RETURN(in.return_old_on_condition_failure,
                        ReadReturnOldOnConditionFailure(body, errors));
  DDBD_RETURN_IF_ERROR(ReadReturnItemCollectionMetrics(body, errors));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  if (in.return_values != ReturnValues::kNone && in.return_values != ReturnValues::kAllOld) {
    return Error::Validation("ReturnValues can only be ALL_OLD or NONE");
  }
  DDBD_ASSIGN_OR_RETURN(in.expressions, ReadExpressions(body, {.condition = true}));
  in.item = std::move(*item);
  DDBD_RETURN_IF_ERROR(CheckItemSize(in.item));
  return in;
}

}  // namespace

Result<std::string> PutItem(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(PutItemInput in, ParsePutItem(req.body));
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTable(in.table_name));
  DDBD_ASSIGN_OR_RETURN(PrimaryKey key, KeyFromItem(*table, in.item));

  const bool needs_old = in.return_values == ReturnValues::kAllOld ||
                         in.expressions.condition != nullptr;
  DDBD_ASSIGN_OR_RETURN(
      storage::WriteOutcome outcome,
      WriteOne(ctx, *table, std::move(key),
               [&in](const std::optional<Item>& old) -> Result<std::optional<Item>> {
                 DDBD_RETURN_IF_ERROR(CheckWriteCondition(in.expressions, old,
                                                          in.return_old_on_condition_failure));
                 return std::optional<Item>(in.item);
               },
               needs_old));
  return RenderWriteResponse(in.table_name, outcome, OldItemIfAsked(in.return_values, outcome),
                             in.capacity);
}

}  // namespace ddbd::server::ops
