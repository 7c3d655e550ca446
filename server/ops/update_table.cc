// UpdateTable: billing mode, provisioned throughput, deletion protection, table class, SSE,
// streams, GlobalSecondaryIndexUpdates and VectorIndexUpdates — made in every replica of a
// global table, as DynamoDB keeps them group-wide, except deletion protection — and the
// replicas of a global table (ReplicaUpdates, replica_changes.h).
#include "model/log.h"
#include "server/ops/index_updates.h"
#include "server/ops/ops.h"
#include "server/ops/replica_changes.h"
#include "server/ops/table_description.h"
#include "server/ops/table_settings.h"
#include "server/ops/transient_status.h"
#include "server/ops/vector_updates.h"

namespace ddbd::server::ops {
namespace {

struct UpdateTableInput {
  std::string_view table_name;
  TableSettingsInput settings;
  std::vector<AttributeDefinition> attribute_definitions;
  std::vector<IndexUpdateInput> index_updates;
  std::vector<VectorIndexUpdateInput> vector_updates;
  ReplicaUpdatesInput replicas;
  uint64_t new_stream_id = 0;  // allocated when the request enables a stream

  bool ChangesSettings() const {
    const TableSettingsInput& s = settings;
    return s.billing_mode || s.throughput || s.on_demand || s.sse || s.table_class ||
           s.deletion_protection || s.stream || !index_updates.empty() || !vector_updates.empty();
  }
};

Result<UpdateTableInput> ParseUpdateTable(OpContext& ctx, wire::JsonObject body) {
  UpdateTableInput in;
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(in.table_name, ReadTableName(body, errors));
  DDBD_ASSIGN_OR_RETURN(in.attribute_definitions,
                        ReadAttributeDefinitions(body, /*required=*/false, errors));
  DDBD_ASSIGN_OR_RETURN(in.settings, ReadTableSettings(body, ctx.region(), errors));
  DDBD_ASSIGN_OR_RETURN(in.index_updates, ReadIndexUpdates(body, errors));
  DDBD_ASSIGN_OR_RETURN(in.vector_updates, ReadVectorIndexUpdates(body, errors));
  DDBD_ASSIGN_OR_RETURN(in.replicas, ReadReplicaUpdates(body, errors));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  if (in.replicas.present() && in.ChangesSettings()) {
    if (in.replicas.strong || !in.replicas.witnesses.empty()) {
      return Error::Validation(
          "Requests that modify replicas or witnesses must not also modify other fields");
    }
    return Error::Validation(
        "One or more parameter values were invalid: Replica modification must be the only "
        "operation in the request");
  }
  if (!in.ChangesSettings() && in.replicas.actions.empty()) {
    return Error::Validation(
        "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, "
        "GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required");
  }
  return in;
}

Status ApplyThroughput(const ThroughputInput& throughput, int64_t now_ms, TableDef& table) {
  Throughput& t = table.throughput;
  if (*throughput.read == t.read_capacity_units && *throughput.write == t.write_capacity_units) {
    return Error::Validation(
        "The provisioned throughput for the table will not change. The requested value equals "
        "the current value. Current ReadCapacityUnits provisioned for the table: " +
        std::to_string(t.read_capacity_units) +
        ". Requested ReadCapacityUnits: " + std::to_string(*throughput.read) +
        ". Current WriteCapacityUnits provisioned for the table: " +
        std::to_string(t.write_capacity_units) +
        ". Requested WriteCapacityUnits: " + std::to_string(*throughput.write) +
        ". Refer to the Amazon DynamoDB Developer Guide for current limits and how to request "
        "higher limits.");
  }
  if (*throughput.read > t.read_capacity_units || *throughput.write > t.write_capacity_units) {
    t.last_increase_ms = now_ms;
  }
  if (*throughput.read < t.read_capacity_units || *throughput.write < t.write_capacity_units) {
    t.last_decrease_ms = now_ms;
    ++t.decreases_today;
  }
  t.read_capacity_units = *throughput.read;
  t.write_capacity_units = *throughput.write;
  return OkStatus();
}

// Applies the request to `table` (the current definition, under the catalog's lock).
Result<IndexChanges> ApplyUpdate(OpContext& ctx, const UpdateTableInput& in, TableDef& table) {
  DDBD_RETURN_IF_ERROR(CheckTableChangeable(table, /*allow_updating=*/false));
  const TableSettingsInput& s = in.settings;

  const BillingMode mode = s.billing_mode.value_or(table.billing_mode);
  if (s.billing_mode || s.throughput) {
    DDBD_RETURN_IF_ERROR(CheckThroughputForMode(mode, s.throughput));
  }
  if (mode == BillingMode::kProvisioned && table.HasVectorIndexes()) {
    return Error::Validation(
        "One or more parameter values were invalid: Tables with vector "
        "indexes must be in PAY_PER_REQUEST mode");
  }
  const int64_t now = ctx.NowMs();
  if (mode != table.billing_mode) {
    table.billing_mode = mode;
    table.billing_mode_updated_ms = now;
    if (mode == BillingMode::kPayPerRequest) {
      table.throughput.read_capacity_units = 0;
      table.throughput.write_capacity_units = 0;
    } else {
      table.on_demand = {};  // maximums belong to on-demand mode
    }
  }
  if (s.on_demand) {
    DDBD_RETURN_IF_ERROR(CheckOnDemand(*s.on_demand, mode, OnDemandSite::kUpdateTable));
    ApplyOnDemand(*s.on_demand, table.on_demand);
  }
  if (s.throughput && mode == BillingMode::kProvisioned) {
    DDBD_RETURN_IF_ERROR(ApplyThroughput(*s.throughput, now, table));
  }
  if (s.deletion_protection) table.deletion_protection = *s.deletion_protection;
  if (s.table_class) table.table_class = std::string(*s.table_class);
  if (s.sse) table.sse = *s.sse;
  if (s.stream) {
    DDBD_RETURN_IF_ERROR(ApplyStream(*s.stream, /*on_create=*/false, in.new_stream_id, now, table));
  }
  // A delete aimed at the index being created is not a second online operation: it gets
  // the vector index's own refusal instead.
  size_t vector_actions = 0;
  for (const auto& update : in.vector_updates) {
    const IndexDef* target = update.delete_name ? table.FindIndex(*update.delete_name) : nullptr;
    vector_actions += !(target && target->status == IndexStatus::kCreating);
  }
  DDBD_ASSIGN_OR_RETURN(
      IndexChanges changes,
      ApplyIndexUpdates(ctx, in.index_updates, in.attribute_definitions, vector_actions, table));
  DDBD_RETURN_IF_ERROR(
      ApplyVectorIndexUpdates(ctx, in.vector_updates, in.attribute_definitions, table, changes));
  return changes;
}

// Applies the request to the table with this id, under the catalog's lock (a backfill
// finishing or a delayed status change meanwhile is not overwritten), and starts what follows:
// backfills of created indexes, the drop of deleted ones (or the settling after the delay).
struct Applied {
  std::shared_ptr<const TableDef> table;
  IndexChanges changes;
};
Result<Applied> ApplyToTable(OpContext& ctx, const UpdateTableInput& in, uint64_t table_id) {
  const bool delayed = TransientStatuses(ctx);
  Applied applied;
  auto apply = [&](TableDef& table) -> Status {
    DDBD_ASSIGN_OR_RETURN(applied.changes, ApplyUpdate(ctx, in, table));
    if (delayed) {
      // UPDATING for a while; deleted indexes stay listed as DELETING (no longer maintained
      // or readable) until their entries are dropped.
      table.status = TableStatus::kUpdating;
      for (const auto& index : applied.changes.deleted) table.indexes.push_back(index);
    }
    return OkStatus();
  };
  DDBD_ASSIGN_OR_RETURN(applied.table, ctx.catalog().Modify(table_id, apply));
  const TableDef& table = *applied.table;
  for (uint64_t index_id : applied.changes.created) StartBackfill(ctx, table.id, index_id);
  if (!delayed) {
    for (const auto& index : applied.changes.deleted) DropIndexData(ctx, table, index);
  } else {
    AfterTransientDelay(ctx, [id = table.id](OpContext& later) { SettleTableUpdate(later, id); });
  }
  return applied;
}

// The request's group-wide settings, made in the other replicas of a global table too.
void ApplyToReplicas(OpContext& ctx, const UpdateTableInput& in, const TableDef& table) {
  UpdateTableInput shared = in;
  shared.settings.deletion_protection.reset();  // regional
  shared.settings.stream.reset();               // refused for global tables
  if (!shared.ChangesSettings()) return;
  for (const auto& replica : ReplicaTables(ctx, table)) {
    Result<Applied> applied = ApplyToTable(ctx, shared, replica->id);
    if (!applied.ok()) {
      log::Warning("global table %s: the update did not apply in %s: %s", table.name.c_str(),
                   replica->region.c_str(), applied.error().message().c_str());
    }
  }
}

Result<std::string> UpdateReplicaGroup(OpContext& ctx, const TableDef& table,
                                       const ReplicaUpdatesInput& in) {
  DDBD_RETURN_IF_ERROR(CheckReplicaUpdates(
      table, in, [&](std::string_view region) { return ReplicaTableIn(ctx, table, region); }));
  return UpdateReplicas(ctx, table, in);
}

}  // namespace

Result<std::string> UpdateTable(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(UpdateTableInput in, ParseUpdateTable(ctx, req.body));
  DDBD_ASSIGN_OR_RETURN(auto current, ctx.FindTableForControl(in.table_name));
  if (!in.replicas.actions.empty()) return UpdateReplicaGroup(ctx, *current, in.replicas);
  if (in.settings.stream && in.settings.stream->enabled) {
    DDBD_ASSIGN_OR_RETURN(in.new_stream_id, ctx.catalog().AllocateId());
  }
  DDBD_ASSIGN_OR_RETURN(Applied applied, ApplyToTable(ctx, in, current->id));
  const TableDef& table = *applied.table;
  ApplyToReplicas(ctx, in, table);
  const IndexChanges& changes = applied.changes;
  const bool indexes_changing = !changes.created.empty() || !changes.deleted.empty();
  TableDef reported = table;
  if (!TransientStatuses(ctx)) {
    // The response still lists deleted indexes, as DELETING; storage forgot them at once.
    for (const auto& index : changes.deleted) reported.indexes.push_back(index);
  }
  wire::JsonWriter out;
  out.BeginObject().Key("TableDescription");
  WriteTableDescription(
      out, reported, ctx.db().Stats(table.id), [&ctx](uint64_t id) { return ctx.db().Stats(id); },
      indexes_changing ? std::optional(TableStatus::kUpdating) : std::nullopt);
  out.EndObject();
  return out.Take();
}

}  // namespace ddbd::server::ops
