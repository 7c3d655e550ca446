// BatchWriteItem: up to 25 puts and deletes over one or more tables, applied atomically in
// one storage batch (DynamoDB promises less; nothing is ever half-applied here). Any
// invalid request rejects the whole batch before anything is written. With
// --enforce-capacity, the writes the throughput limits refuse come back as UnprocessedItems
// (all of them refused: the throttling exception) and the others are applied together.
#include <algorithm>
#include <unordered_set>

#include "index/index_entries.h"
#include "index/vector_entries.h"
#include "server/ops/item_request.h"
#include "server/ops/ops.h"
#include "server/ops/throttling.h"
#include "wire/attribute_value_json.h"

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

// One write of the batch, checked against its table.
struct BatchEntry {
  std::shared_ptr<const TableDef> table;
  size_t table_request = 0;  // which of the request's tables named it
  PrimaryKey key;
  const WriteRequest* request = nullptr;
};

// Applies `entries` in one storage batch. With --enforce-capacity, the writes the throughput
// limits refuse are left out (appended to `refused`, with the first refusal kept) and the rest
// applied; the result lists the writes applied and their outcomes.
struct Applied {
  std::vector<const BatchEntry*> entries;
  std::vector<storage::WriteOutcome> outcomes;
};
Result<Applied> ApplyWithinCapacity(OpContext& ctx, const std::vector<BatchEntry>& entries,
                                    std::vector<const BatchEntry*>& refused,
                                    std::optional<Error>& first_refusal) {
  Applied applied;
  for (const BatchEntry& entry : entries) applied.entries.push_back(&entry);
  // Each attempt that meets a limit drops the writes refused and tries the rest again (their
  // units may differ by then: old items are re-read), so attempts strictly shrink.
  while (!applied.entries.empty()) {
    std::vector<storage::ItemWrite> writes;
    for (const BatchEntry* entry : applied.entries) {
      writes.push_back(storage::Replacement(*entry->table, entry->key, entry->request->put_item));
    }
    std::vector<bool> refusals;
    storage::Verdict verdict;
    if (ctx.service().capacity()) {
      verdict = [&](const std::vector<storage::WriteOutcome>& outcomes) -> Status {
        // A write that failed on its own (an item collection past its limit) fails the call.
        for (const storage::WriteOutcome& outcome : outcomes) {
          if (outcome.failure) return OkStatus();
        }
        std::vector<const TableDef*> tables;
        std::vector<AttributeValue> partitions;
        for (const BatchEntry* entry : applied.entries) {
          tables.push_back(entry->table.get());
          partitions.push_back(entry->key.partition);
        }
        auto taken = TakeEachWrite(ctx, tables, partitions, outcomes, /*factor=*/1);
        if (!taken.first_refusal) return OkStatus();
        for (const auto& refusal : taken.refusals) refusals.push_back(refusal.has_value());
        if (!first_refusal) first_refusal = taken.first_refusal;
        return *taken.first_refusal;  // nothing is written; the caller retries the rest
      };
    }
    auto outcomes = ctx.db().WriteItems(std::move(writes), verdict);
    if (outcomes.ok()) {
      applied.outcomes = *std::move(outcomes);
      for (size_t i = 0; i < applied.outcomes.size(); ++i) {
        // A batch's puts have no condition: blind (its deletes write no image).
        MeterWrite(ctx, *applied.entries[i]->table, applied.entries[i]->key, applied.outcomes[i],
                   /*factor=*/1, /*blind=*/true);
      }
      return applied;
    }
    if (refusals.empty()) return std::move(outcomes).error();
    std::vector<const BatchEntry*> admitted;
    for (size_t i = 0; i < refusals.size(); ++i) {
      (refusals[i] ? refused : admitted).push_back(applied.entries[i]);
    }
    applied.entries = std::move(admitted);
  }
  return applied;
}

void WriteUnprocessedItems(wire::JsonWriter& out, const BatchWriteInput& in,
                           const std::vector<const BatchEntry*>& refused) {
  out.Key("UnprocessedItems").BeginObject();
  for (size_t t = 0; t < in.tables.size(); ++t) {
    bool open = false;
    for (const BatchEntry* entry : refused) {
      if (entry->table_request != t) continue;
      if (!open) out.Key(in.tables[t].table_name).BeginArray();
      open = true;
      out.BeginObject();
      if (entry->request->put_item) {
        out.Key("PutRequest").BeginObject().Key("Item");
        wire::WriteAttributeMap(out, *entry->request->put_item);
      } else {
        out.Key("DeleteRequest").BeginObject().Key("Key");
        wire::WriteAttributeMap(out, entry->request->delete_key);
      }
      out.EndObject().EndObject();
    }
    if (open) out.EndArray();
  }
  out.EndObject();
}

}  // namespace

Result<std::string> BatchWriteItem(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(BatchWriteInput in, ParseBatchWrite(req.body));
  std::vector<BatchEntry> entries;
  std::unordered_set<ItemIdentity, ItemIdentityHash> seen;
  for (size_t t = 0; t < in.tables.size(); ++t) {
    DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTable(in.tables[t].table_name));
    for (const auto& request : in.tables[t].requests) {
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
      entries.push_back({table, t, std::move(key), &request});
    }
  }
  std::vector<const BatchEntry*> refused;
  std::optional<Error> first_refusal;
  DDBD_ASSIGN_OR_RETURN(Applied applied, ApplyWithinCapacity(ctx, entries, refused, first_refusal));
  // A batch refused throughout is answered with the throttling exception itself.
  if (applied.entries.empty() && first_refusal) return *std::move(first_refusal);

  MultiWrite multi;
  for (const BatchEntry* entry : applied.entries) {
    multi.table_of_write.push_back(
        multi.TableIndex(entry->table, in.tables[entry->table_request].table_name));
    multi.partitions.push_back(entry->key.partition);
  }
  wire::JsonWriter out;
  out.BeginObject();
  WriteUnprocessedItems(out, in, refused);
  WriteMultiWriteMetrics(out, multi, applied.outcomes, in.capacity, in.item_collection_metrics,
                         /*unit_factor=*/1);
  out.EndObject();
  return out.Take();
}

}  // namespace ddbd::server::ops
