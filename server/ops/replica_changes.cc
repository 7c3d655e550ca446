// Adding, changing and removing the replicas of a global table.
#include "server/ops/replica_changes.h"

#include <algorithm>

#include "replication/regions.h"
#include "server/ops/common.h"
#include "server/ops/table_description.h"
#include "server/ops/table_settings.h"
#include "server/ops/transient_status.h"

namespace ddbd::server::ops {
namespace {

using Kind = ReplicaActionInput::Kind;

ReplicaSpec SpecOf(const ReplicaActionInput& action, int64_t now_ms) {
  ReplicaSpec spec;
  spec.region = action.region;
  spec.status = ReplicaStatus::kCreating;
  spec.read_capacity_override = action.read_capacity_override;
  spec.max_read_request_units_override = action.max_read_request_units_override;
  spec.table_class_override = action.table_class_override;
  if (spec.table_class_override) spec.table_class_changed_ms = now_ms;
  spec.kms_master_key_id = action.kms_master_key_id.value_or("");
  spec.indexes = action.indexes;
  return spec;
}

// The replica's own table settings follow its overrides.
void ApplyOverrides(const ReplicaSpec& spec, TableDef& table) {
  if (spec.read_capacity_override && table.billing_mode == BillingMode::kProvisioned) {
    table.throughput.read_capacity_units = *spec.read_capacity_override;
  }
  if (spec.max_read_request_units_override) {
    table.on_demand.max_read_request_units = *spec.max_read_request_units_override;
  }
  if (spec.table_class_override) table.table_class = *spec.table_class_override;
  for (const auto& override_of : spec.indexes) {
    for (auto& index : table.indexes) {
      if (index.name != override_of.index_name) continue;
      if (override_of.read_capacity_override && table.billing_mode == BillingMode::kProvisioned) {
        index.throughput.read_capacity_units = *override_of.read_capacity_override;
      }
      if (override_of.max_read_request_units_override) {
        index.on_demand.max_read_request_units = *override_of.max_read_request_units_override;
      }
    }
  }
}

// The definition of a new replica of `source` in `spec.region`: the same schema, indexes,
// billing and Time to Live, a stream of its own; tags, policies, backups and deletion
// protection stay regional.
Result<TableDef> ReplicaDefinition(OpContext& ctx, const TableDef& source,
                                   const ReplicaSpec& spec) {
  TableDef replica = source;
  replica.scope = replication::ScopeInRegion(source.scope, spec.region);
  replica.region = spec.region;
  replica.table_uuid = NewTableUuid();
  replica.creation_time_ms = ctx.NowMs();
  replica.status = TableStatus::kCreating;
  replica.tags.clear();
  replica.policy.reset();
  replica.deletion_protection = false;
  replica.pitr_enabled_ms = 0;
  replica.pitr_history_id = 0;
  replica.restored_from.reset();
  replica.contributor_insights.reset();
  replica.ttl_indexed = false;
  for (auto& index : replica.indexes) index.contributor_insights.reset();
  const StreamSpec* stream = source.EnabledStream();
  DDBD_ASSIGN_OR_RETURN(uint64_t stream_id, ctx.catalog().AllocateId());
  replica.streams = {StreamSpec{stream_id, stream->view_type, replica.creation_time_ms, true}};
  ApplyOverrides(spec, replica);
  return replica;
}

// The table a replica update was asked of: UPDATING → ACTIVE (nothing when it is gone).
void EndUpdating(OpContext& ctx, uint64_t table_id) {
  auto ended = ctx.catalog().Modify(table_id, [](TableDef& current) {
    if (current.status == TableStatus::kUpdating) current.status = TableStatus::kActive;
    return OkStatus();
  });
  ended.IgnoreError();
}

// CREATING → ACTIVE: the replica in `region`, its table, and the table the request named.
void ActivateReplica(OpContext& ctx, uint64_t table_id, const std::string& region) {
  auto table = ctx.catalog().FindById(table_id);
  if (!table) return;
  if (auto replica = ReplicaTableIn(ctx, *table, region)) ActivateTable(ctx, replica->id);
  EditGroup(ctx, *table, [&](ReplicationGroup& group) {
    if (ReplicaSpec* spec = group.Find(region)) spec->status = ReplicaStatus::kActive;
  }).IgnoreError();
  EndUpdating(ctx, table_id);
}

// The source of a new replica: a stream (NEW_AND_OLD_IMAGES when it has none enabled), the
// group with the new member, UPDATING while the replica is created.
Result<std::shared_ptr<const TableDef>> JoinSource(OpContext& ctx, const TableDef& table,
                                                   const ReplicaSpec& spec, bool strong) {
  uint64_t stream_id = 0;
  if (!table.EnabledStream()) {
    DDBD_ASSIGN_OR_RETURN(stream_id, ctx.catalog().AllocateId());
  }
  const int64_t now = ctx.NowMs();
  return ctx.catalog().Modify(table.id, [&](TableDef& current) -> Status {
    if (!current.EnabledStream()) {
      StreamInput enable{true, StreamViewType::kNewAndOldImages};
      DDBD_RETURN_IF_ERROR(ApplyStream(enable, /*on_create=*/false, stream_id, now, current));
    }
    if (!current.replication) {
      current.replication.emplace().replicas.push_back(ReplicaSpec{.region = current.region});
      current.replication->strong_consistency = strong;
    }
    current.replication->replicas.push_back(spec);
    current.status = TableStatus::kUpdating;
    return OkStatus();
  });
}

Status CreateReplica(OpContext& ctx, const TableDef& table, const ReplicaActionInput& action,
                     bool strong) {
  if (table.HasVectorIndexes()) {
    return Error::Validation(
        "One or more parameter values were invalid: Tables with vector indexes cannot have "
        "replicas");
  }
  const ReplicaSpec spec = SpecOf(action, ctx.NowMs());
  // The other members learn of the new one first: their changes from now on reach it.
  for (const auto& member : ReplicaTables(ctx, table)) {
    DDBD_RETURN_IF_ERROR(OutcomeOf(ctx.catalog().Modify(member->id, [&](TableDef& current) {
      current.replication->replicas.push_back(spec);
      return OkStatus();
    })));
  }
  DDBD_ASSIGN_OR_RETURN(auto source, JoinSource(ctx, table, spec, strong));
  if (replication::RegionIsolated(table.scope)) {
    DDBD_ASSIGN_OR_RETURN(TableDef definition, ReplicaDefinition(ctx, *source, spec));
    DDBD_ASSIGN_OR_RETURN(auto replica, ctx.catalog().Create(std::move(definition)));
    DDBD_RETURN_IF_ERROR(ctx.service().replicator().Seed(*source, *replica));
    DDBD_RETURN_IF_ERROR(OutcomeOf(ctx.db().CloneTable(*source, *replica)));
    if (replica->ttl_attribute) ctx.service().ttl().IndexTable(replica->id);
  }
  if (!TransientStatuses(ctx)) {
    ActivateReplica(ctx, table.id, action.region);
  } else {
    AfterTransientDelay(ctx, [id = table.id, region = action.region](OpContext& later) {
      ActivateReplica(later, id, region);
    });
  }
  return OkStatus();
}

// The replica in `region` leaves the group (and its table is deleted).
void RemoveReplica(OpContext& ctx, uint64_t table_id, const std::string& region) {
  auto table = ctx.catalog().FindById(table_id);
  if (!table) return;
  auto replica = ReplicaTableIn(ctx, *table, region);
  EditGroup(ctx, *table, [&](ReplicationGroup& group) {
    std::erase_if(group.replicas, [&](const ReplicaSpec& spec) { return spec.region == region; });
    std::erase(group.witnesses, region);
  }).IgnoreError();
  if (replica) FinishTableDeletion(ctx, replica->id);
  EndUpdating(ctx, table_id);
}

Status DeleteReplica(OpContext& ctx, const TableDef& table, const std::string& region) {
  auto replica = ReplicaTableIn(ctx, table, region);
  if (replica && replica->deletion_protection) {
    return Error::Validation("Cannot delete table " + table.name + " in region " + region +
                             " because it has deletion protection enabled. Disable deletion "
                             "protection first.");
  }
  if (!TransientStatuses(ctx)) {
    RemoveReplica(ctx, table.id, region);
    return OkStatus();
  }
  DDBD_RETURN_IF_ERROR(EditGroup(ctx, table, [&](ReplicationGroup& group) {
    if (ReplicaSpec* spec = group.Find(region)) spec->status = ReplicaStatus::kDeleting;
  }));
  if (replica) {
    DDBD_RETURN_IF_ERROR(OutcomeOf(ctx.catalog().Modify(replica->id, [](TableDef& current) {
      current.status = TableStatus::kDeleting;
      return OkStatus();
    })));
  }
  AfterTransientDelay(
      ctx, [id = table.id, region](OpContext& later) { RemoveReplica(later, id, region); });
  return OkStatus();
}

// An Update: the overrides it sets replace the replica's, per GSI by name.
void MergeOverrides(const ReplicaActionInput& action, int64_t now_ms, ReplicaSpec& spec) {
  if (action.read_capacity_override) spec.read_capacity_override = action.read_capacity_override;
  if (action.max_read_request_units_override) {
    spec.max_read_request_units_override = action.max_read_request_units_override;
  }
  if (action.table_class_override) {
    spec.table_class_override = action.table_class_override;
    spec.table_class_changed_ms = now_ms;
  }
  if (action.kms_master_key_id) spec.kms_master_key_id = *action.kms_master_key_id;
  for (const auto& index : action.indexes) {
    auto it = std::find_if(spec.indexes.begin(), spec.indexes.end(), [&](const auto& existing) {
      return existing.index_name == index.index_name;
    });
    ReplicaIndexSettings& target = it != spec.indexes.end() ? *it : spec.indexes.emplace_back();
    target.index_name = index.index_name;
    if (index.read_capacity_override) target.read_capacity_override = index.read_capacity_override;
    if (index.max_read_request_units_override) {
      target.max_read_request_units_override = index.max_read_request_units_override;
    }
  }
}

Status UpdateReplica(OpContext& ctx, const TableDef& table, const ReplicaActionInput& action) {
  const int64_t now = ctx.NowMs();
  std::optional<ReplicaSpec> updated;
  DDBD_RETURN_IF_ERROR(EditGroup(ctx, table, [&](ReplicationGroup& group) {
    if (ReplicaSpec* spec = group.Find(action.region)) {
      MergeOverrides(action, now, *spec);
      updated = *spec;
    }
  }));
  auto replica = action.region == table.region ? ctx.catalog().FindById(table.id)
                                               : ReplicaTableIn(ctx, table, action.region);
  if (!replica || !updated) return OkStatus();
  return OutcomeOf(ctx.catalog().Modify(replica->id, [&](TableDef& current) {
    ApplyOverrides(*updated, current);
    return OkStatus();
  }));
}

}  // namespace

std::shared_ptr<const TableDef> ReplicaTableIn(OpContext& ctx, const TableDef& table,
                                               std::string_view region) {
  if (!replication::RegionIsolated(table.scope)) return nullptr;
  return ctx.catalog().Find(replication::ScopeInRegion(table.scope, region), table.name);
}

std::vector<std::shared_ptr<const TableDef>> ReplicaTables(OpContext& ctx, const TableDef& table) {
  std::vector<std::shared_ptr<const TableDef>> tables;
  if (!table.replication) return tables;
  for (const auto& replica : table.replication->replicas) {
    if (replica.region == table.region) continue;
    if (auto found = ReplicaTableIn(ctx, table, replica.region)) tables.push_back(found);
  }
  return tables;
}

Status EditGroup(OpContext& ctx, const TableDef& table,
                 const std::function<void(ReplicationGroup&)>& edit) {
  std::vector<uint64_t> members = {table.id};
  for (const auto& replica : ReplicaTables(ctx, table)) members.push_back(replica->id);
  for (uint64_t id : members) {
    auto edited = ctx.catalog().Modify(id, [&](TableDef& current) {
      if (!current.replication) return OkStatus();
      edit(*current.replication);
      const ReplicationGroup& group = *current.replication;
      if (group.replicas.size() <= 1 && group.witnesses.empty()) current.replication.reset();
      return OkStatus();
    });
    if (!edited.ok() && edited.error().code() != ErrorCode::kResourceNotFound) {
      return std::move(edited).error();
    }
  }
  return OkStatus();
}

Status LeaveGroup(OpContext& ctx, const TableDef& table) {
  if (!table.replication) return OkStatus();
  if (table.replication->strong_consistency) {
    return Error::Validation(
        "Deletion of only one table replica is not supported for global tables with "
        "MultiRegionConsistency set to STRONG.");
  }
  const std::string region = table.region;
  for (const auto& replica : ReplicaTables(ctx, table)) {
    DDBD_RETURN_IF_ERROR(EditGroup(ctx, *replica, [&](ReplicationGroup& group) {
      std::erase_if(group.replicas, [&](const ReplicaSpec& spec) { return spec.region == region; });
    }));
    break;  // EditGroup reaches every member from one of them
  }
  return OkStatus();
}

Result<std::string> UpdateReplicas(OpContext& ctx, const TableDef& table,
                                   const ReplicaUpdatesInput& in) {
  if (in.strong.value_or(false) && ctx.db().Stats(table.id).item_count > 0) {
    return Error::Validation(
        "One or more parameter values were invalid: A table must be empty to become a global "
        "table with MultiRegionConsistency set to STRONG");
  }
  Status changed = ctx.service().replicator().Exclusive([&]() -> Status {
    for (const auto& action : in.actions) {
      auto current = ctx.catalog().FindById(table.id);
      if (!current) return ctx.MissingTable({});
      switch (action.kind) {
        case Kind::kCreate:
          DDBD_RETURN_IF_ERROR(CreateReplica(ctx, *current, action, in.strong.value_or(false)));
          break;
        case Kind::kUpdate:
          DDBD_RETURN_IF_ERROR(UpdateReplica(ctx, *current, action));
          break;
        case Kind::kDelete:
          DDBD_RETURN_IF_ERROR(DeleteReplica(ctx, *current, action.region));
          break;
      }
    }
    auto current = ctx.catalog().FindById(table.id);
    if (!current) return OkStatus();
    return EditGroup(ctx, *current, [&](ReplicationGroup& group) {
      for (const auto& witness : in.witnesses) {
        std::erase(group.witnesses, witness.region);
        if (witness.create) group.witnesses.push_back(witness.region);
      }
    });
  });
  DDBD_RETURN_IF_ERROR(changed);
  auto current = ctx.catalog().FindById(table.id);
  if (!current) return ctx.MissingTable({});
  // As DynamoDB answers: a replica being added is CREATING, one being removed is reported as
  // it was, whatever has happened since.
  TableDef reported = *current;
  if (!reported.replication) reported.replication = table.replication;
  for (const auto& action : in.actions) {
    ReplicaSpec* spec = reported.replication ? reported.replication->Find(action.region) : nullptr;
    if (action.kind == Kind::kCreate && spec) spec->status = ReplicaStatus::kCreating;
    const ReplicaSpec* before =
        table.replication ? table.replication->Find(action.region) : nullptr;
    if (action.kind == Kind::kDelete && before) {
      if (spec) *spec = *before;
      if (!spec) reported.replication->replicas.push_back(*before);
    }
  }
  wire::JsonWriter out;
  out.BeginObject().Key("TableDescription");
  WriteTableDescription(
      out, reported, ctx.db().Stats(current->id),
      [&ctx](uint64_t id) { return ctx.db().Stats(id); }, TableStatus::kUpdating);
  out.EndObject();
  return out.Take();
}

void SettleReplicas(OpContext& ctx, const TableDef& table) {
  if (!table.replication) return;
  for (const auto& replica : table.replication->replicas) {
    if (replica.region == table.region) continue;
    if (replica.status == ReplicaStatus::kCreating || replica.status == ReplicaStatus::kDeleting) {
      RemoveReplica(ctx, table.id, replica.region);
    } else if (replica.status == ReplicaStatus::kUpdating) {
      ActivateReplica(ctx, table.id, replica.region);
    }
  }
}

}  // namespace ddbd::server::ops
