// TransactGetItems: up to 100 Get actions over one or more tables, read as one consistent
// snapshot: every item's lock is held while all of them are read (a check-only
// Database::WriteItems), so no write lands between two of the reads.
#include "server/ops/transact_get_items.h"

#include <algorithm>
#include <unordered_set>

#include "server/ops/ops.h"
#include "server/ops/throttling.h"

namespace ddbd::server::ops {
namespace {

constexpr size_t kMaxGets = 100;

}  // namespace

Result<TransactGetInput> ParseTransactGetItems(wire::JsonObject body) {
  TransactGetInput in;
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(auto items, wire::GetArray(body, "TransactItems"));
  DDBD_ASSIGN_OR_RETURN(in.capacity, ReadReturnConsumedCapacity(body, errors));
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
      errors.Add(std::nullopt, "transactItems",
                 "Member must have length greater than or equal to 1");
    } else if (position > kMaxGets) {
      errors.Add(std::nullopt, "transactItems",
                 "Member must have length less than or equal to 100");
    }
  }
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  for (wire::JsonObject get : gets) {
    DDBD_ASSIGN_OR_RETURN(GetRequest request, ReadGetRequest(get));
    in.gets.push_back(std::move(request));
  }
  return in;
}

Result<TransactGetOutput> ExecuteTransactGetItems(OpContext& ctx, TransactGetInput in) {
  TransactGetOutput output;
  output.capacity = in.capacity;
  std::vector<storage::ItemWrite> reads;
  std::vector<std::shared_ptr<const TableDef>> tables;
  std::unordered_set<ItemIdentity, ItemIdentityHash> seen;
  for (GetRequest& get : in.gets) {
    DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTable(get.table_name));
    DDBD_ASSIGN_OR_RETURN(PrimaryKey key, KeyFromParameter(*table, get.key));
    storage::ItemWrite read;
    read.table = table.get();
    read.key = std::move(key);
    read.check_only = true;
    read.compute = [](const std::optional<Item>& old) { return storage::Mutation::Store(old); };
    reads.push_back(std::move(read));
    output.table_ids.push_back(table->id);
    tables.push_back(std::move(table));
  }
  for (size_t i = 0; i < reads.size(); ++i) {
    if (!seen.insert(ItemIdentity{tables[i]->id, reads[i].key}).second) {
      return Error::Validation(
          "Transaction request cannot include multiple operations on one item");
    }
  }
  // Every Get is admitted before any is read; a refused one cancels the transaction.
  // The sites point into `partitions`: `reads` is handed to storage.
  std::vector<AttributeValue> partitions;
  for (const storage::ItemWrite& read : reads) partitions.push_back(read.key.partition);
  std::vector<ReadSite> sites;
  std::vector<std::optional<Error>> refusals(reads.size());
  bool throttled = false;
  for (size_t i = 0; i < reads.size(); ++i) {
    sites.push_back({tables[i].get(), nullptr, {&partitions[i], 1}});
    if (Status admitted = AdmitRead(ctx, sites[i]); !admitted.ok()) {
      refusals[i] = std::move(admitted).error();
      throttled = true;
    }
  }
  if (throttled) return ThrottledTransaction(refusals);
  DDBD_ASSIGN_OR_RETURN(output.outcomes, ctx.db().WriteItems(std::move(reads)));
  for (size_t i = 0; i < sites.size(); ++i) {
    const storage::WriteOutcome& read = output.outcomes[i];
    const uint64_t found = read.existed ? 1 : 0;
    ChargeRead(ctx, sites[i], 2 * ReadUnits(read.old_size, /*consistent=*/true),
               {found, read.old_size, found, insight::ReadKind::kGet, nullptr, nullptr});
  }
  output.gets = std::move(in.gets);
  return output;
}

std::string RenderTransactGetItems(const TransactGetOutput& output) {
  wire::JsonWriter out;
  out.BeginObject();
  if (output.capacity != CapacityDetail::kNone) {
    // Transactional reads cost twice a strongly consistent read, per table.
    // Tables in the order of their first Get, each named as that Get named it.
    struct TableUnits {
      uint64_t id;
      std::string_view name;
      double units;
    };
    std::vector<TableUnits> tables;
    for (size_t i = 0; i < output.gets.size(); ++i) {
      auto it = std::find_if(tables.begin(), tables.end(),
                             [&](const TableUnits& t) { return t.id == output.table_ids[i]; });
      if (it == tables.end()) {
        tables.push_back({output.table_ids[i], output.gets[i].table_name, 0});
        it = tables.end() - 1;
      }
      it->units += 2 * ReadUnits(output.outcomes[i].old_size, /*consistent=*/true);
    }
    out.Key("ConsumedCapacity").BeginArray();
    for (const TableUnits& table : tables) {
      WriteConsumedCapacity(out, output.capacity, table.name, table.units, false);
    }
    out.EndArray();
  }
  out.Key("Responses").BeginArray();
  for (size_t i = 0; i < output.gets.size(); ++i) {
    out.BeginObject();
    if (output.outcomes[i].old_item)
      WriteFoundItem(out, *output.outcomes[i].old_item, output.gets[i].expressions);
    out.EndObject();
  }
  out.EndArray();
  out.EndObject();
  return out.Take();
}

Result<std::string> TransactGetItems(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(TransactGetInput in, ParseTransactGetItems(req.body));
  DDBD_ASSIGN_OR_RETURN(TransactGetOutput output, ExecuteTransactGetItems(ctx, std::move(in)));
  return RenderTransactGetItems(output);
}

}  // namespace ddbd::server::ops
