// DeleteItem: remove one item by its primary key, optionally under a ConditionExpression.
#include "server/ops/item_request.h"
#include "server/ops/ops.h"

namespace ddbd::server::ops {
namespace {

struct DeleteItemInput {
  std::string_view table_name;
  Item key;
  ExpressionInputs expressions;
  ReturnValues return_values = ReturnValues::kNone;
  bool return_old_on_condition_failure = false;
  CapacityDetail capacity = CapacityDetail::kNone;
};

Result<DeleteItemInput> ParseDeleteItem(wire::JsonObject body) {
  DeleteItemInput in;
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(in.table_name, ReadTableName(body, errors));
  DDBD_ASSIGN_OR_RETURN(std::optional<Item> key, ReadAttributeMap(body, "Key", "key", errors));
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
  in.key = std::move(*key);
  return in;
}

}  // namespace

Result<std::string> DeleteItem(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(DeleteItemInput in, ParseDeleteItem(req.body));
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTable(in.table_name));
  DDBD_ASSIGN_OR_RETURN(PrimaryKey key, KeyFromParameter(*table, in.key));

  const bool needs_old = in.return_values == ReturnValues::kAllOld ||
                         in.expressions.condition != nullptr;
  DDBD_ASSIGN_OR_RETURN(
      storage::WriteOutcome outcome,
      WriteOne(ctx, *table, std::move(key),
               [&in](const std::optional<Item>& old) -> Result<std::optional<Item>> {
                 DDBD_RETURN_IF_ERROR(CheckWriteCondition(in.expressions, old,
                                                          in.return_old_on_condition_failure));
                 return std::optional<Item>();
               },
               needs_old));
  return RenderWriteResponse(in.table_name, outcome, OldItemIfAsked(in.return_values, outcome),
                             in.capacity);
}

}  // namespace ddbd::server::ops
