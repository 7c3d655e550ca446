// DeleteItem: remove one item by its primary key, optionally under a ConditionExpression.
#include "server/ops/item_request.h"
#include "server/ops/ops.h"

namespace ddbd::server::ops {

Result<PreparedWrite> PrepareDelete(OpContext& ctx, ItemWriteInput input) {
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTable(input.request.table_name));
  DDBD_ASSIGN_OR_RETURN(PrimaryKey key, KeyFromParameter(*table, input.item));
  return Replacing(std::move(table), std::move(key), std::move(input.request), std::nullopt);
}

// A transaction's ConditionCheck: the key's item must satisfy the condition; nothing is written.
Result<PreparedWrite> PrepareConditionCheck(OpContext& ctx, ItemWriteInput input) {
  DDBD_ASSIGN_OR_RETURN(PreparedWrite write, PrepareDelete(ctx, std::move(input)));
  write.check_only = true;
  write.needs_old_item = true;
  return write;
}

Result<std::string> DeleteItem(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(ItemWriteInput input,
                        ParseItemWrite(req.body, ItemWriteInput::Kind::kDelete));
  DDBD_ASSIGN_OR_RETURN(PreparedWrite write, PrepareDelete(ctx, std::move(input)));
  DDBD_ASSIGN_OR_RETURN(WriteOutput output, ExecuteItemWrite(ctx, std::move(write)));
  return RenderWriteOutput(output);
}

}  // namespace ddbd::server::ops
