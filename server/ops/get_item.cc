// GetItem: read one item by its primary key.
#include "server/ops/item_request.h"
#include "server/ops/ops.h"

namespace ddbd::server::ops {

Result<std::string> GetItem(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(GetRequest in, ReadGetRequest(req.body));
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTable(in.table_name));
  DDBD_ASSIGN_OR_RETURN(PrimaryKey key, KeyFromParameter(*table, in.key));
  DDBD_ASSIGN_OR_RETURN(std::optional<Item> item, ctx.db().GetItem(*table, key));

  wire::JsonWriter out;
  out.BeginObject();
  if (item) WriteFoundItem(out, *item, in.expressions);
  if (in.capacity != CapacityDetail::kNone) {
    out.Key("ConsumedCapacity");
    WriteConsumedCapacity(out, in.capacity, in.table_name,
                          ReadUnits(item ? ItemSize(*item) : 0, in.consistent_read), false);
  }
  out.EndObject();
  return out.Take();
}

}  // namespace ddbd::server::ops
