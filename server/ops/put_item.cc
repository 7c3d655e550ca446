// PutItem: create or replace one item, optionally under a ConditionExpression.
#include "index/index_entries.h"
#include "index/vector_entries.h"
#include "server/ops/item_request.h"
#include "server/ops/ops.h"

namespace ddbd::server::ops {

Result<std::string> PutItem(OpContext& ctx, const Request& req) {
  Item item;
  DDBD_ASSIGN_OR_RETURN(WriteRequest request,
                        ReadWriteRequest(req.body, "Item", "item", item, {.condition = true},
                                         /*only_all_old=*/true));
  DDBD_RETURN_IF_ERROR(CheckItemSize(item));
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTable(request.table_name));
  DDBD_ASSIGN_OR_RETURN(PrimaryKey key, KeyFromItem(*table, item));
  DDBD_RETURN_IF_ERROR(index::CheckIndexKeys(*table, item));
  DDBD_RETURN_IF_ERROR(index::CheckVectorAttributes(*table, item, index::EveryAttribute));
  return ReplaceItem(ctx, *table, std::move(key), std::move(item), request);
}

}  // namespace ddbd::server::ops
