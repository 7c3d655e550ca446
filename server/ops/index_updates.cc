// GSI creation, deletion and throughput updates on existing tables.
#include "server/ops/index_updates.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <thread>

#include "model/log.h"
#include "server/ops/vector_updates.h"

namespace ddbd::server::ops {
namespace {

Error OneOnlineIndexAtATime() {
  return Error::LimitExceeded(
      "Subscriber limit exceeded: Only 1 online index can be created or "
      "deleted simultaneously per table");
}

// The GSI `create` declares, checked against the table: its keys must be defined by this
// request's AttributeDefinitions (also those the table already knows) with the type the
// table's other keys give them. Definitions no key uses are ignored, as DynamoDB ignores them.
// Pinned by: test_index_updates.py
Result<std::vector<IndexDef>> CreatedIndex(const TableDef& table, const IndexInput& create,
                                           const std::vector<AttributeDefinition>& definitions) {
  if (definitions.empty()) {
    return Error::Validation(
        "One or more parameter values were invalid: AttributeDefinitions is "
        "not specified for index: " +
        create.name);
  }
  for (const auto& key : create.key_schema) {
    const auto type = DefinedType(definitions, key.name);
    if (!type) continue;  // CheckIndexes reports it
    for (const auto& other : table.indexes) {
      if (other.IsVector() && other.vector->attribute == key.name) {
        return AttributeRedefined(KeyElement{key.name, *type}, key.key_type, *other.vector,
                                  /*vector_first=*/true);
      }
    }
    if (auto existing = KeyUsing(table, key.name); existing && existing->first.type != *type) {
      return KeyRedefined(existing->first, existing->second, KeyElement{key.name, *type},
                          key.key_type);
    }
  }
  return CheckIndexes(table.partition_key, table.sort_key, definitions, table.billing_mode,
                      std::vector<IndexInput>{create}, std::nullopt);
}

void AddDefinition(const KeyElement& key, std::vector<AttributeDefinition>& definitions) {
  if (!DefinedType(definitions, key.name)) definitions.push_back({key.name, key.type});
}

}  // namespace

Error OneOnlineIndexAtATimeError() { return OneOnlineIndexAtATime(); }

Result<std::vector<AttributeDefinition>> MergeDefinitions(
    const std::vector<AttributeDefinition>& existing,
    const std::vector<AttributeDefinition>& added) {
  std::vector<AttributeDefinition> definitions = existing;
  for (const auto& def : added) {
    bool known = false;
    for (auto& current : definitions) {
      if (current.name == def.name) {
        if (current.type != def.type) {
          return Error::Validation(
              "One or more parameter values were invalid: Attribute "
              "definition for " +
              def.name +
              " conflicts with the "
              "existing definition");
        }
        known = true;
      }
    }
    if (!known) definitions.push_back(def);
  }
  return definitions;
}

Result<std::vector<IndexUpdateInput>> ReadIndexUpdates(wire::JsonObject body,
                                                       wire::ConstraintErrors& errors) {
  std::vector<IndexUpdateInput> updates;
  DDBD_ASSIGN_OR_RETURN(auto array, wire::GetArray(body, "GlobalSecondaryIndexUpdates"));
  if (!array) return updates;
  for (wire::JsonValue element : *array) {
    DDBD_ASSIGN_OR_RETURN(wire::JsonObject object, wire::AsObject(element));
    IndexUpdateInput update;
    const int actions = wire::Member(object, "Create").has_value() +
                        wire::Member(object, "Update").has_value() +
                        wire::Member(object, "Delete").has_value();
    // Pinned by: test_index_updates.py::test_index_update_entry_refusals
    if (actions > 1) {
      return Error::Validation(
          "One or more parameter values were invalid: Only one global "
          "secondary index action is allowed per GlobalSecondaryIndexUpdate "
          "object");
    }
    if (std::optional<wire::JsonValue> create = wire::Member(object, "Create")) {
      update.kind = IndexUpdateInput::Kind::kCreate;
      const std::string path =
          "globalSecondaryIndexUpdates." + std::to_string(updates.size() + 1) + ".member.create";
      DDBD_ASSIGN_OR_RETURN(update.create, ReadIndex(*create, path, /*local=*/false, errors));
    } else if (std::optional<wire::JsonValue> del = wire::Member(object, "Delete")) {
      update.kind = IndexUpdateInput::Kind::kDelete;
      DDBD_ASSIGN_OR_RETURN(wire::JsonObject del_object, wire::AsObject(*del));
      DDBD_ASSIGN_OR_RETURN(auto name, wire::GetString(del_object, "IndexName"));
      update.index_name = std::string(name.value_or(""));
    } else if (std::optional<wire::JsonValue> change = wire::Member(object, "Update")) {
      update.kind = IndexUpdateInput::Kind::kUpdate;
      DDBD_ASSIGN_OR_RETURN(wire::JsonObject change_object, wire::AsObject(*change));
      DDBD_ASSIGN_OR_RETURN(auto name, wire::GetString(change_object, "IndexName"));
      update.index_name = std::string(name.value_or(""));
      DDBD_ASSIGN_OR_RETURN(update.throughput, ReadIndexThroughput(change_object));
      DDBD_ASSIGN_OR_RETURN(update.on_demand, ReadOnDemandThroughput(change_object));
    } else {
      return Error::Validation(
          "One or more parameter values were invalid: One of "
          "GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, "
          "GlobalSecondaryIndexUpdate.Delete must not be null");
    }
    auto target = [](const IndexUpdateInput& u) -> const std::string& {
      return u.kind == IndexUpdateInput::Kind::kCreate ? u.create.name : u.index_name;
    };
    const std::string& name = target(update);
    for (const auto& earlier : updates) {
      if (target(earlier) == name) {
        return Error::Validation(
            "One or more parameter values were invalid: Only one global "
            "secondary index update per index is allowed simultaneously. "
            "Index: " +
            name);
      }
    }
    updates.push_back(std::move(update));
  }
  return updates;
}

Result<IndexChanges> ApplyIndexUpdates(OpContext& ctx, const std::vector<IndexUpdateInput>& updates,
                                       const std::vector<AttributeDefinition>& new_definitions,
                                       size_t vector_actions, TableDef& table) {
  IndexChanges changes;
  size_t online = vector_actions;
  for (const auto& update : updates) online += update.kind != IndexUpdateInput::Kind::kUpdate;
  for (const auto& index : table.indexes) {
    online += index.status == IndexStatus::kCreating || index.status == IndexStatus::kDeleting;
  }
  if (online > 1) return OneOnlineIndexAtATime();

  for (const auto& update : updates) {
    switch (update.kind) {
      case IndexUpdateInput::Kind::kCreate: {
        if (const IndexDef* existing = table.FindIndex(update.create.name);
            existing && existing->IsVector()) {
          return Error::Validation("Attempting to create an index which already exists");
        }
        if (table.FindIndex(update.create.name)) {
          return Error::Validation(
              "One or more parameter values were invalid: Index already "
              "exists: " +
              update.create.name);
        }
        DDBD_ASSIGN_OR_RETURN(std::vector<IndexDef> created,
                              CreatedIndex(table, update.create, new_definitions));
        IndexDef index = std::move(created.front());
        DDBD_ASSIGN_OR_RETURN(index.id, ctx.catalog().AllocateId());
        index.status = IndexStatus::kCreating;
        index.backfilling = true;
        changes.created.push_back(index.id);
        // The new keys' definitions join the table's; any others in the request are ignored.
        for (const auto& key : index.partition_keys)
          AddDefinition(key, table.attribute_definitions);
        for (const auto& key : index.sort_keys) AddDefinition(key, table.attribute_definitions);
        table.indexes.push_back(std::move(index));
        break;
      }
      case IndexUpdateInput::Kind::kDelete:
      case IndexUpdateInput::Kind::kUpdate: {
        auto it = std::find_if(table.indexes.begin(), table.indexes.end(), [&](const IndexDef& i) {
          return !i.local && !i.IsVector() && i.name == update.index_name;
        });
        if (it == table.indexes.end()) {
          return Error::ResourceNotFound(
              "Requested resource not found: Requested resource not "
              "found");
        }
        if (update.kind == IndexUpdateInput::Kind::kUpdate) {
          if (update.throughput) it->throughput = *update.throughput;
          if (update.on_demand) {
            DDBD_RETURN_IF_ERROR(CheckOnDemand(*update.on_demand, table.billing_mode,
                                               OnDemandSite::kUpdateIndex, it->name));
            ApplyOnDemand(*update.on_demand, it->on_demand);
          }
          break;
        }
        IndexDef deleted = *it;
        deleted.status = IndexStatus::kDeleting;
        changes.deleted.push_back(std::move(deleted));
        table.indexes.erase(it);
        DropUnusedDefinitions(table);
        break;
      }
    }
  }
  return changes;
}

void StartBackfill(OpContext& ctx, uint64_t table_id, uint64_t index_id) {
  ctx.service().backfills().Start(table_id, index_id);
}

}  // namespace ddbd::server::ops
