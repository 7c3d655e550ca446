// DeleteItem: remove one item by its primary key, optionally under a ConditionExpression.
#include "server/ops/item_request.h"
#include "server/ops/ops.h"

namespace ddbd::server::ops {

Result<PreparedWrite> PrepareDelete(OpContext& ctx, wire::JsonObject body) {
  Item key_attributes;
  DDBD_ASSIGN_OR_RETURN(WriteRequest request,
                        ReadWriteRequest(body, "Key", "key", key_attributes,
                                         {.condition = true}, /*only_all_old=*/true));
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTable(request.table_name));
  DDBD_ASSIGN_OR_RETURN(PrimaryKey key, KeyFromParameter(*table, key_attributes));
  return Replacing(std::move(table), std::move(key), std::move(request), std::nullopt);
}

Result<std::string> DeleteItem(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(PreparedWrite write, PrepareDelete(ctx, req.body));
  return RunWrite(ctx, std::move(write));
}

}  // namespace ddbd::server::ops
