// TransactGetItems: up to 100 Get actions over one or more tables, read as one consistent
// snapshot: every item's lock is held while all of them are read (a check-only
// Database::WriteItems), so no write lands between two of the reads.
#include <algorithm>
#include <unordered_set>

#include "server/ops/item_request.h"
#include "server/ops/ops.h"

namespace ddbd::server::ops {
namespace {

constexpr size_t kMaxGets = 100;

struct TransactGet {
  GetRequest request;
  std::shared_ptr<const TableDef> table;
  PrimaryKey key;
};

Result<std::vector<TransactGet>> ReadTransactGets(OpContext& ctx, wire::JsonObject body,
                                                  CapacityDetail& capacity) {
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(auto items, wire::GetArray(body, "TransactItems"));
  DDBD_ASSIGN_OR_RETURN(capacity, ReadReturnConsumedCapacity(body, errors));
  std::vector<wire::JsonObject> gets;
  size_t position = 0;
  if (!items) {
    errors.NotNull("transactItems");
  } else {
    for (wire::JsonValue item : *items) {
      ++position;
      DDBD_ASSIGN_OR_RETURN(wire::JsonObject element, wire::AsObject(item));
      DDBD_ASSIGN_OR_RETURN(auto get, wire::GetObject(element, "Get"));
      if (!get) {
        errors.NotNull("transactItems." + std::to_string(position) + ".member.get");
      } else {
        gets.push_back(*get);
      }
    }
    if (position == 0) {
      errors.Add(std::nullopt, "transactItems", "Member must have length greater than or equal to 1");
    } else if (position > kMaxGets) {
      errors.Add(std::nullopt, "transactItems", "Member must have length less than or equal to 100");
    }
  }
  DDBD_RETURN_IF_ERROR(errors.ToStatus());

  std::vector<TransactGet> result;
  std::unordered_set<ItemIdentity, ItemIdentityHash> seen;
  for (wire::JsonObject get : gets) {
    TransactGet parsed;
    DDBD_ASSIGN_OR_RETURN(parsed.request, ReadGetRequest(get));
    DDBD_ASSIGN_OR_RETURN(parsed.table, ctx.FindTable(parsed.request.table_name));
    DDBD_ASSIGN_OR_RETURN(parsed.key, KeyFromParameter(*parsed.table, parsed.request.key));
    result.push_back(std::move(parsed));
  }
  for (const TransactGet& get : result) {
    if (!seen.insert(ItemIdentity{get.table->id, get.key}).second) {
      return Error::Validation("Transaction request cannot include multiple operations on one item");
    }
  }
  return result;
}

}  // namespace

Result<std::string> TransactGetItems(OpContext& ctx, const Request& req) {
  CapacityDetail capacity = CapacityDetail::kNone;
  DDBD_ASSIGN_OR_RETURN(std::vector<TransactGet> gets, ReadTransactGets(ctx, req.body, capacity));
  std::vector<storage::ItemWrite> reads;
  for (const TransactGet& get : gets) {
    storage::ItemWrite read;
    read.table = get.table.get();
    read.key = get.key;
    read.check_only = true;
    read.compute = [](const std::optional<Item>& old) { return storage::Mutation::Store(old); };
    reads.push_back(std::move(read));
  }
  DDBD_ASSIGN_OR_RETURN(auto outcomes, ctx.db().WriteItems(std::move(reads)));

  wire::JsonWriter out;
  out.BeginObject();
  if (capacity != CapacityDetail::kNone) {
    // Transactional reads cost twice a strongly consistent read, per table.
    // Tables in the order of their first Get, each named as that Get named it.
    struct TableUnits {
      uint64_t id;
      std::string_view name;
      double units;
    };
    std::vector<TableUnits> tables;
    for (size_t i = 0; i < gets.size(); ++i) {
      auto it = std::find_if(tables.begin(), tables.end(),
                             [&](const TableUnits& t) { return t.id == gets[i].table->id; });
      if (it == tables.end()) {
        tables.push_back({gets[i].table->id, gets[i].request.table_name, 0});
        it = tables.end() - 1;
      }
      it->units += 2 * ReadUnits(outcomes[i].old_size, /*consistent=*/true);
    }
    out.Key("ConsumedCapacity").BeginArray();
    for (const TableUnits& table : tables) {
      WriteConsumedCapacity(out, capacity, table.name, table.units, false);
    }
    out.EndArray();
  }
  out.Key("Responses").BeginArray();
  for (size_t i = 0; i < gets.size(); ++i) {
    out.BeginObject();
    if (outcomes[i].old_item) WriteFoundItem(out, *outcomes[i].old_item, gets[i].request.expressions);
    out.EndObject();
  }
  out.EndArray();
  out.EndObject();
  return out.Take();
}

}  // namespace ddbd::server::ops
