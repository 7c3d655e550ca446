// DeleteItem: remove one item by its primary key.
#include "server/ops/item_request.h"
#include "server/ops/ops.h"

namespace ddbd::server::ops {
namespace {

struct DeleteItemInput {
  std::string_view table_name;
  Item key;
  ReturnValues return_values = ReturnValues::kNone;
  CapacityDetail capacity = CapacityDetail::kNone;
};

Result<DeleteItemInput> ParseDeleteItem(wire::JsonObject body) {
  DeleteItemInput in;
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(in.table_name, ReadTableName(body, errors));
  DDBD_ASSIGN_OR_RETURN(std::optional<Item> key, ReadAttributeMap(body, "Key", "key", errors));
  DDBD_ASSIGN_OR_RETURN(in.return_values, ReadReturnValues(body, errors));
  DDBD_ASSIGN_OR_RETURN(in.capacity, ReadReturnConsumedCapacity(body, errors));
  DDBD_RETURN_IF_ERROR(ReadReturnItemCollectionMetrics(body, errors));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  DDBD_RETURN_IF_ERROR(RejectExpressions(body, {"ConditionExpression"}));
  if (in.return_values != ReturnValues::kNone && in.return_values != ReturnValues::kAllOld) {
    return Error::Validation("ReturnValues can only be ALL_OLD or NONE");
  }
  in.key = std::move(*key);
  return in;
}

}  // namespace

Result<std::string> DeleteItem(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(DeleteItemInput in, ParseDeleteItem(req.body));
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTable(in.table_name));
  DDBD_ASSIGN_OR_RETURN(PrimaryKey key, KeyFromParameter(*table, in.key));

  DDBD_ASSIGN_OR_RETURN(storage::WriteOutcome outcome,
                        WriteOne(ctx, *table, std::move(key),
                                 [](const std::optional<Item>&) -> Result<std::optional<Item>> {
                                   return std::optional<Item>();
                                 },
                                 in.return_values == ReturnValues::kAllOld));
  return RenderWriteResponse(in.table_name, outcome, in.return_values, in.capacity);
}

}  // namespace ddbd::server::ops
