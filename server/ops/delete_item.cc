// DeleteItem: remove one item by its primary key, optionally under a ConditionExpression.
#include "server/ops/item_request.h"
#include "server/ops/ops.h"

namespace ddbd::server::ops {

Result<std::string> DeleteItem(OpContext& ctx, const Request& req) {
  Item key_attributes;
  DDBD_ASSIGN_OR_RETURN(WriteRequest request,
                        ReadWriteRequest(req.body, "Key", "key", key_attributes,
                                         {.condition = true}, /*only_all_old=*/true));
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTable(request.table_name));
  DDBD_ASSIGN_OR_RETURN(PrimaryKey key, KeyFromParameter(*table, key_attributes));
  return ReplaceItem(ctx, *table, std::move(key), std::nullopt, request);
}

}  // namespace ddbd::server::ops
