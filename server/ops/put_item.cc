// PutItem: create or replace one item, optionally under a ConditionExpression.
#include "index/index_entries.h"
#include "index/vector_entries.h"
#include "server/ops/item_request.h"
#include "server/ops/ops.h"

namespace ddbd::server::ops {

Result<PreparedWrite> PreparePut(OpContext& ctx, wire::JsonObject body) {
  Item item;
  DDBD_ASSIGN_OR_RETURN(WriteRequest request,
                        ReadWriteRequest(body, "Item", "item", item, {.condition = true},
                                         /*only_all_old=*/true));
  DDBD_RETURN_IF_ERROR(CheckItemSize(item));
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTable(request.table_name));
  DDBD_ASSIGN_OR_RETURN(PrimaryKey key, KeyFromItem(*table, item));
  DDBD_RETURN_IF_ERROR(index::CheckIndexKeys(*table, item));
  DDBD_RETURN_IF_ERROR(index::CheckVectorAttributes(*table, item, index::EveryAttribute));
  return Replacing(std::move(table), std::move(key), std::move(request), std::move(item));
}

Result<std::string> PutItem(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(PreparedWrite write, PreparePut(ctx, req.body));
  return RunWrite(ctx, std::move(write));
}

}  // namespace ddbd::server::ops
