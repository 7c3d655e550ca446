// GetItem: read one item by its primary key.
#include "server/ops/item_request.h"
#include "server/ops/ops.h"
#include "server/ops/throttling.h"

namespace ddbd::server::ops {

Result<GetOutput> ExecuteGetItem(OpContext& ctx, const GetRequest& in) {
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTable(in.table_name));
  DDBD_ASSIGN_OR_RETURN(PrimaryKey key, KeyFromParameter(*table, in.key));
  const ReadSite site{table.get(), nullptr, {&key.partition, 1}};
  DDBD_RETURN_IF_ERROR(AdmitRead(ctx, site));
  GetOutput output;
  DDBD_ASSIGN_OR_RETURN(output.stored, ctx.db().GetStoredItem(*table, key));
  DDBD_ASSIGN_OR_RETURN(size_t size, StoredSize(output.stored));
  output.units = ReadUnits(size, in.consistent_read);
  const uint64_t found = output.stored ? 1 : 0;
  ChargeRead(ctx, site, output.units,
             {found, size, found, insight::ReadKind::kGet, &in.expressions,
              key.sort ? &*key.sort : nullptr});
  return output;
}

Result<std::optional<Item>> FoundItem(const GetOutput& output) {
  if (!output.stored) return std::optional<Item>();
  DDBD_ASSIGN_OR_RETURN(Item item, storage::DecodeStoredItem(*output.stored));
  return std::optional<Item>(std::move(item));
}

Result<std::string> RenderGetItem(const GetRequest& in, const GetOutput& output) {
  wire::JsonWriter out;
  out.BeginObject();
  if (output.stored) {
    out.Key("Item");
    DDBD_RETURN_IF_ERROR(WriteStoredItem(out, *output.stored, in.expressions));
  }
  if (in.capacity != CapacityDetail::kNone) {
    out.Key("ConsumedCapacity");
    WriteConsumedCapacity(out, in.capacity, in.table_name, output.units, false);
  }
  out.EndObject();
  return out.Take();
}

Result<std::string> GetItem(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(GetRequest in, ReadGetRequest(req.body));
  DDBD_ASSIGN_OR_RETURN(GetOutput output, ExecuteGetItem(ctx, in));
  return RenderGetItem(in, output);
}

}  // namespace ddbd::server::ops
