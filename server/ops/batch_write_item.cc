// BatchWriteItem: up to 25 puts and deletes over one or more tables, applied atomically in
// one storage batch (DynamoDB promises less; nothing is ever half-applied here). Any
// invalid request rejects the whole batch before anything is written.
#include <algorithm>
#include <unordered_set>

#include "index/index_entries.h"
#include "index/vector_entries.h"
#include "server/ops/item_request.h"
#include "server/ops/ops.h"

namespace ddbd::server::ops {
namespace {

constexpr size_t kMaxWrites = 25;

struct WriteRequest {
  std::optional<Item> put_item;  // absent: a delete of `delete_key`
  Item delete_key;
};

struct TableWrites {
  std::string_view table_name;
  std::vector<WriteRequest> requests;
};

struct BatchWriteInput {
  std::vector<TableWrites> tables;
  CapacityDetail capacity = CapacityDetail::kNone;
  bool item_collection_metrics = false;
};

constexpr std::string_view kOneRequestType =
    "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the "
    "supported datatypes";

Result<WriteRequest> ParseWriteRequest(wire::JsonValue json) {
  DDBD_ASSIGN_OR_RETURN(wire::JsonObject object, wire::AsObject(json));
  DDBD_ASSIGN_OR_RETURN(auto put, wire::GetObject(object, "PutRequest"));
  DDBD_ASSIGN_OR_RETURN(auto del, wire::GetObject(object, "DeleteRequest"));
  if (put.has_value() == del.has_value()) return Error::Validation(std::string(kOneRequestType));
  WriteRequest request;
  wire::ConstraintErrors errors;
  if (put) {
    DDBD_ASSIGN_OR_RETURN(auto item, ReadAttributeMap(*put, "Item", "item", errors));
    DDBD_RETURN_IF_ERROR(errors.ToStatus());
    DDBD_RETURN_IF_ERROR(CheckItemSize(*item));
    request.put_item = std::move(item);
  } else {
    DDBD_ASSIGN_OR_RETURN(auto key, ReadAttributeMap(*del, "Key", "key", errors));
    DDBD_RETURN_IF_ERROR(errors.ToStatus());
    request.delete_key = std::move(*key);
  }
  return request;
}

Result<BatchWriteInput> ParseBatchWrite(wire::JsonObject body) {
  BatchWriteInput in;
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(auto items, wire::GetObject(body, "RequestItems"));
  DDBD_ASSIGN_OR_RETURN(in.capacity, ReadReturnConsumedCapacity(body, errors));
  DDBD_ASSIGN_OR_RETURN(in.item_collection_metrics, ReadReturnItemCollectionMetrics(body, errors));
  if (!items) errors.NotNull("requestItems");
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  size_t total = 0;
  for (auto field : *items) {
    if (field.value.is_null()) continue;
    TableWrites writes{field.key, {}};
    DDBD_ASSIGN_OR_RETURN(wire::JsonArray array, wire::AsArray(field.value));
    for (wire::JsonValue element : array) {
      DDBD_ASSIGN_OR_RETURN(WriteRequest request, ParseWriteRequest(element));
      writes.requests.push_back(std::move(request));
    }
    total += writes.requests.size();
    in.tables.push_back(std::move(writes));
  }
  if (in.tables.empty()) errors.LengthAtLeast("{}", "requestItems", 1);
  for (const auto& writes : in.tables) {
    if (writes.requests.empty() || writes.requests.size() > kMaxWrites || total > kMaxWrites) {
      errors.Add("{" + std::string(writes.table_name) + "=[…]}", "requestItems",
                 "Map value must satisfy constraint: [Member must have length less than or equal "
                 "to 25, Member must have length greater than or equal to 1]");
      break;
    }
  }
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  return in;
}

}  // namespace

Result<std::string> BatchWriteItem(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(BatchWriteInput in, ParseBatchWrite(req.body));
  MultiWrite multi;
  std::vector<storage::ItemWrite> writes;
  std::unordered_set<ItemIdentity, ItemIdentityHash> seen;
  for (size_t t = 0; t < in.tables.size(); ++t) {
    DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTable(in.tables[t].table_name));
    const size_t position = multi.TableIndex(table, in.tables[t].table_name);
    for (auto& request : in.tables[t].requests) {
      PrimaryKey key;
      if (request.put_item) {
        DDBD_ASSIGN_OR_RETURN(key, KeyFromItem(*table, *request.put_item));
        DDBD_RETURN_IF_ERROR(index::CheckIndexKeys(*table, *request.put_item));
        DDBD_RETURN_IF_ERROR(
            index::CheckVectorAttributes(*table, *request.put_item, index::EveryAttribute));
      } else {
        DDBD_ASSIGN_OR_RETURN(key, KeyFromParameter(*table, request.delete_key));
      }
      if (!seen.insert(ItemIdentity{table->id, key}).second) {
        return Error::Validation("Provided list of item keys contains duplicates");
      }
      multi.table_of_write.push_back(position);
      multi.partitions.push_back(key.partition);
      writes.push_back(storage::Replacement(*table, std::move(key), request.put_item));
    }
  }
  DDBD_ASSIGN_OR_RETURN(auto outcomes, ctx.db().WriteItems(std::move(writes)));

  wire::JsonWriter out;
  out.BeginObject().Key("UnprocessedItems").BeginObject().EndObject();
  WriteMultiWriteMetrics(out, multi, outcomes, in.capacity, in.item_collection_metrics,
                         /*unit_factor=*/1);
  out.EndObject();
  return out.Take();
}

}  // namespace ddbd::server::ops
