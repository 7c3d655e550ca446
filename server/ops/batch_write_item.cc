// BatchWriteItem: up to 25 puts and deletes over one or more tables, applied atomically in
// one storage batch (DynamoDB promises less; nothing is ever half-applied here). Any
// invalid request rejects the whole batch before anything is written.
#include <algorithm>
#include <set>

#include "index/index_entries.h"
#include "index/vector_entries.h"
#include "server/ops/item_request.h"
#include "server/ops/ops.h"
#include "storage/key_codec.h"

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
  std::vector<std::shared_ptr<const TableDef>> tables;
  std::vector<storage::ItemWrite> writes;
  std::vector<size_t> table_of_write;
  std::vector<AttributeValue> partitions;
  std::set<std::string> seen;
  for (size_t t = 0; t < in.tables.size(); ++t) {
    DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTable(in.tables[t].table_name));
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
      if (!seen.insert(storage::ItemKey(table->id, key)).second) {
        return Error::Validation("Provided list of item keys contains duplicates");
      }
      const std::optional<Item>* new_item = &request.put_item;
      writes.push_back({table.get(), std::move(key),
                        [new_item](const std::optional<Item>&) -> Result<std::optional<Item>> {
                          return *new_item;
                        },
                        /*needs_old_item=*/false});
      table_of_write.push_back(t);
      partitions.push_back(writes.back().key.partition);
    }
    tables.push_back(std::move(table));
  }
  DDBD_ASSIGN_OR_RETURN(auto outcomes, ctx.db().WriteItems(std::move(writes)));

  wire::JsonWriter out;
  out.BeginObject().Key("UnprocessedItems").BeginObject().EndObject();
  if (in.capacity != CapacityDetail::kNone) {
    std::vector<CapacityUse> use(tables.size());
    for (size_t i = 0; i < outcomes.size(); ++i) {
      const size_t t = table_of_write[i];
      use[t].Add(WriteCapacityUse(*tables[t], outcomes[i], in.capacity));
    }
    out.Key("ConsumedCapacity").BeginArray();
    for (size_t t = 0; t < tables.size(); ++t) {
      WriteConsumedCapacity(out, in.capacity, in.tables[t].table_name, use[t], true);
    }
    out.EndArray();
  }
  if (in.item_collection_metrics) {
    bool any = false;
    for (const auto& outcome : outcomes) any |= outcome.collection_size.has_value();
    if (any) {
      out.Key("ItemCollectionMetrics").BeginObject();
      for (size_t t = 0; t < tables.size(); ++t) {
        if (std::none_of(tables[t]->indexes.begin(), tables[t]->indexes.end(),
                         [](const IndexDef& i) { return i.local; })) {
          continue;
        }
        out.Key(in.tables[t].table_name).BeginArray();
        for (size_t i = 0; i < outcomes.size(); ++i) {
          if (table_of_write[i] != t || !outcomes[i].collection_size) continue;
          WriteItemCollectionMetrics(out, *tables[t], partitions[i], *outcomes[i].collection_size);
        }
        out.EndArray();
      }
      out.EndObject();
    }
  }
  out.EndObject();
  return out.Take();
}

}  // namespace ddbd::server::ops
