// PutItem: create or replace one item, optionally under a ConditionExpression.
#include "index/index_entries.h"
#include "index/vector_entries.h"
#include "server/ops/item_request.h"
#include "server/ops/ops.h"

namespace ddbd::server::ops {

Result<PrimaryKey> CheckPutItem(const TableDef& table, const Item& item) {
  DDBD_ASSIGN_OR_RETURN(PrimaryKey key, KeyFromItem(table, item));
  DDBD_RETURN_IF_ERROR(index::CheckIndexKeys(table, item));
  DDBD_RETURN_IF_ERROR(index::CheckVectorAttributes(table, item, index::EveryAttribute));
  return key;
}

Result<PreparedWrite> PreparePut(OpContext& ctx, ItemWriteInput input) {
  Item& item = input.item;
  WriteRequest& request = input.request;
  DDBD_RETURN_IF_ERROR(CheckItemSize(item));
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTable(request.table_name));
  DDBD_ASSIGN_OR_RETURN(PrimaryKey key, CheckPutItem(*table, item));
  return Replacing(std::move(table), std::move(key), std::move(request), std::move(item));
}

Result<std::string> PutItem(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(ItemWriteInput input, ParseItemWrite(req.body, ItemWriteInput::Kind::kPut));
  DDBD_ASSIGN_OR_RETURN(PreparedWrite write, PreparePut(ctx, std::move(input)));
  DDBD_ASSIGN_OR_RETURN(WriteOutput output, ExecuteItemWrite(ctx, std::move(write)));
  return RenderWriteOutput(output);
}

}  // namespace ddbd::server::ops
