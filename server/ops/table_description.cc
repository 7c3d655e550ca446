// TableDescription rendering.
#include "server/ops/table_description.h"

#include "backups/restore.h"

namespace ddbd::server::ops {
void WriteKeySchema(wire::JsonWriter& out, const TableDef& table) {
  out.BeginArray();
  out.BeginObject()
      .Key("AttributeName")
      .String(table.partition_key.name)
      .Key("KeyType")
      .String("HASH")
      .EndObject();
  if (table.sort_key) {
    out.BeginObject()
        .Key("AttributeName")
        .String(table.sort_key->name)
        .Key("KeyType")
        .String("RANGE")
        .EndObject();
  }
  out.EndArray();
}

namespace {

void WriteThroughput(wire::JsonWriter& out, const TableDef& table) {
  const Throughput& t = table.throughput;
  out.BeginObject();
  if (t.last_increase_ms) out.Key("LastIncreaseDateTime").EpochSeconds(t.last_increase_ms);
  if (t.last_decrease_ms) out.Key("LastDecreaseDateTime").EpochSeconds(t.last_decrease_ms);
  out.Key("NumberOfDecreasesToday").Int(t.decreases_today);
  out.Key("ReadCapacityUnits").Int(t.read_capacity_units);
  out.Key("WriteCapacityUnits").Int(t.write_capacity_units);
  out.EndObject();
}

// Only maximums that are set appear, and no object at all when none is: DynamoDB drops a
// member cleared with -1.
void WriteOnDemand(wire::JsonWriter& out, const OnDemandThroughput& on_demand) {
  if (!on_demand.IsSet()) return;
  out.Key("OnDemandThroughput").BeginObject();
  if (on_demand.max_read_request_units != -1) {
    out.Key("MaxReadRequestUnits").Int(on_demand.max_read_request_units);
  }
  if (on_demand.max_write_request_units != -1) {
    out.Key("MaxWriteRequestUnits").Int(on_demand.max_write_request_units);
  }
  out.EndObject();
}

std::string_view IndexStatusName(IndexStatus status) {
  switch (status) {
    case IndexStatus::kCreating:
      return "CREATING";
    case IndexStatus::kActive:
      return "ACTIVE";
    case IndexStatus::kDeleting:
      return "DELETING";
    case IndexStatus::kUpdating:
      return "UPDATING";
  }
  return "ACTIVE";
}

void WriteIndexKeySchema(wire::JsonWriter& out, const IndexDef& index) {
  out.BeginArray();
  for (const auto& key : index.partition_keys) {
    out.BeginObject()
        .Key("AttributeName")
        .String(key.name)
        .Key("KeyType")
        .String("HASH")
        .EndObject();
  }
  for (const auto& key : index.sort_keys) {
    out.BeginObject()
        .Key("AttributeName")
        .String(key.name)
        .Key("KeyType")
        .String("RANGE")
        .EndObject();
  }
  out.EndArray();
}

// `Backfilling` belongs to an index being added to an existing table; indexes created with
// their table (CREATING while it is) do not report it.
bool ShowsBackfilling(const TableDef& table, const IndexDef& index) {
  return index.status == IndexStatus::kCreating && table.status != TableStatus::kCreating;
}

void WriteProjection(wire::JsonWriter& out, const IndexDef& index) {
  out.Key("Projection")
      .BeginObject()
      .Key("ProjectionType")
      .String(ProjectionTypeName(index.projection));
  if (!index.non_key_attributes.empty()) {
    out.Key("NonKeyAttributes").BeginArray();
    for (const auto& name : index.non_key_attributes) out.String(name);
    out.EndArray();
  }
  out.EndObject();
}

// TableDescription.VectorIndexes (spec/vector-search.md §4.1): `Backfilling` only while an
// index added by UpdateTable is being created.
void WriteVectorIndexes(wire::JsonWriter& out, const TableDef& table, const IndexStatsFn& stats) {
  if (!table.HasVectorIndexes()) return;
  out.Key("VectorIndexes").BeginArray();
  for (const auto& index : table.indexes) {
    if (!index.IsVector()) continue;
    const VectorSpec& spec = *index.vector;
    const storage::TableStats index_stats = stats(index.id);
    out.BeginObject();
    out.Key("IndexName").String(index.name);
    if (!index.partition_keys.empty() || !spec.filters.empty()) {
      out.Key("SearchSchema").BeginArray();
      auto element = [&out](const KeyElement& key, std::string_view type) {
        out.BeginObject()
            .Key("AttributeName")
            .String(key.name)
            .Key("SearchSchemaElementType")
            .String(type)
            .EndObject();
      };
      for (const auto& key : index.partition_keys) element(key, "HASH");
      for (const auto& key : spec.filters) element(key, "INLINE_FILTER");
      out.EndArray();
    }
    WriteProjection(out, index);
    out.Key("VectorAttribute")
        .BeginObject()
        .Key("AttributeName")
        .String(spec.attribute)
        .EndObject();
    out.Key("Dimensions").Int(spec.dimensions);
    out.Key("DistanceFunction").String(DistanceFunctionName(spec.distance));
    out.Key("IndexStatus").String(IndexStatusName(index.status));
    if (ShowsBackfilling(table, index)) out.Key("Backfilling").Bool(index.backfilling);
    out.Key("IndexSizeBytes").Int(index_stats.size_bytes);
    out.Key("ItemCount").Int(index_stats.item_count);
    out.Key("IndexArn").String(table.Arn() + "/index/" + index.name);
    out.EndObject();
  }
  out.EndArray();
}

void WriteIndexes(wire::JsonWriter& out, const TableDef& table, bool local,
                  const IndexStatsFn& stats) {
  bool any = false;
  for (const auto& index : table.indexes) any |= index.local == local && !index.IsVector();
  if (!any) return;
  out.Key(local ? "LocalSecondaryIndexes" : "GlobalSecondaryIndexes").BeginArray();
  for (const auto& index : table.indexes) {
    if (index.local != local || index.IsVector()) continue;
    const storage::TableStats index_stats = stats(index.id);
    out.BeginObject();
    out.Key("IndexName").String(index.name);
    out.Key("KeySchema");
    WriteIndexKeySchema(out, index);
    WriteProjection(out, index);
    if (!local) {
      out.Key("IndexStatus").String(IndexStatusName(index.status));
      if (ShowsBackfilling(table, index)) out.Key("Backfilling").Bool(index.backfilling);
      out.Key("ProvisionedThroughput")
          .BeginObject()
          .Key("NumberOfDecreasesToday")
          .Int(index.throughput.decreases_today)
          .Key("ReadCapacityUnits")
          .Int(index.throughput.read_capacity_units)
          .Key("WriteCapacityUnits")
          .Int(index.throughput.write_capacity_units)
          .EndObject();
      WriteOnDemand(out, index.on_demand);
    }
    out.Key("IndexSizeBytes").Int(index_stats.size_bytes);
    out.Key("ItemCount").Int(index_stats.item_count);
    out.Key("IndexArn").String(table.Arn() + "/index/" + index.name);
    out.EndObject();
  }
  out.EndArray();
}

}  // namespace

std::string_view TableStatusName(TableStatus status) {
  switch (status) {
    case TableStatus::kCreating:
      return "CREATING";
    case TableStatus::kActive:
      return "ACTIVE";
    case TableStatus::kDeleting:
      return "DELETING";
    case TableStatus::kUpdating:
      return "UPDATING";
  }
  return "ACTIVE";
}

namespace {

void WriteAttributeDefinitions(wire::JsonWriter& out, const TableDef& table) {
  out.Key("AttributeDefinitions").BeginArray();
  for (const auto& def : table.attribute_definitions) {
    out.BeginObject()
        .Key("AttributeName")
        .String(def.name)
        .Key("AttributeType")
        .String(KeyAttributeTypeName(def.type))
        .EndObject();
  }
  out.EndArray();
}

void WriteBillingModeSummary(wire::JsonWriter& out, const TableDef& table) {
  out.Key("BillingModeSummary").BeginObject();
  if (table.billing_mode == BillingMode::kPayPerRequest) {
    out.Key("BillingMode").String("PAY_PER_REQUEST");
    out.Key("LastUpdateToPayPerRequestDateTime").EpochSeconds(table.billing_mode_updated_ms);
  } else {
    out.Key("BillingMode").String("PROVISIONED");
  }
  out.EndObject();
}

// A global table's members: its version, the other replicas (DynamoDB lists the regions
// other than the one described) with what they override, strong consistency and witnesses.
void WriteReplica(wire::JsonWriter& out, const TableDef& table, const ReplicaSpec& replica) {
  out.BeginObject();
  out.Key("RegionName").String(replica.region);
  out.Key("ReplicaStatus").String(ReplicaStatusName(replica.status));
  if (!replica.kms_master_key_id.empty()) {
    out.Key("KMSMasterKeyId").String(replica.kms_master_key_id);
  }
  if (replica.read_capacity_override) {
    out.Key("ProvisionedThroughputOverride").BeginObject();
    out.Key("ReadCapacityUnits").Int(*replica.read_capacity_override).EndObject();
  }
  if (replica.max_read_request_units_override) {
    out.Key("OnDemandThroughputOverride").BeginObject();
    out.Key("MaxReadRequestUnits").Int(*replica.max_read_request_units_override).EndObject();
  }
  bool any_gsi = false;
  for (const auto& index : table.indexes) {
    if (index.local || index.IsVector()) continue;
    if (!any_gsi) out.Key("GlobalSecondaryIndexes").BeginArray();
    any_gsi = true;
    out.BeginObject().Key("IndexName").String(index.name);
    for (const auto& settings : replica.indexes) {
      if (settings.index_name != index.name) continue;
      if (settings.read_capacity_override) {
        out.Key("ProvisionedThroughputOverride").BeginObject();
        out.Key("ReadCapacityUnits").Int(*settings.read_capacity_override).EndObject();
      }
      if (settings.max_read_request_units_override) {
        out.Key("OnDemandThroughputOverride").BeginObject();
        out.Key("MaxReadRequestUnits").Int(*settings.max_read_request_units_override).EndObject();
      }
    }
    out.EndObject();
  }
  if (any_gsi) out.EndArray();
  if (replica.table_class_override) {
    out.Key("ReplicaTableClassSummary").BeginObject();
    out.Key("TableClass").String(*replica.table_class_override);
    out.Key("LastUpdateDateTime").EpochSeconds(replica.table_class_changed_ms).EndObject();
  }
  out.Key("GlobalTableSettingsReplicationMode").String("ENABLED_WITH_OVERRIDES");
  out.EndObject();
}

void WriteReplication(wire::JsonWriter& out, const TableDef& table) {
  const ReplicationGroup& group = *table.replication;
  out.Key("GlobalTableVersion").String(kGlobalTableVersion);
  out.Key("Replicas").BeginArray();
  for (const auto& replica : group.replicas) {
    if (replica.region != table.region) WriteReplica(out, table, replica);
  }
  out.EndArray();
  if (group.strong_consistency) out.Key("MultiRegionConsistency").String("STRONG");
  if (!group.witnesses.empty()) {
    out.Key("GlobalTableWitnesses").BeginArray();
    for (const auto& witness : group.witnesses) {
      out.BeginObject().Key("RegionName").String(witness);
      out.Key("WitnessStatus").String("ACTIVE").EndObject();
    }
    out.EndArray();
  }
  out.Key("GlobalTableSettingsReplicationMode").String("ENABLED_WITH_OVERRIDES");
}

}  // namespace

void WriteTableDescription(wire::JsonWriter& out, const TableDef& table,
                           const storage::TableStats& stats, const IndexStatsFn& index_stats,
                           std::optional<TableStatus> status) {
  out.BeginObject();
  WriteAttributeDefinitions(out, table);
  out.Key("TableName").String(table.name);
  out.Key("KeySchema");
  WriteKeySchema(out, table);
  out.Key("TableStatus").String(TableStatusName(status.value_or(table.status)));
  out.Key("CreationDateTime").EpochSeconds(table.creation_time_ms);
  out.Key("ProvisionedThroughput");
  WriteThroughput(out, table);
  WriteOnDemand(out, table.on_demand);
  out.Key("TableSizeBytes").Int(stats.size_bytes);
  out.Key("ItemCount").Int(stats.item_count);
  out.Key("TableArn").String(table.Arn());
  out.Key("TableId").String(table.table_uuid);
  WriteBillingModeSummary(out, table);
  if (table.table_class != "STANDARD") {
    out.Key("TableClassSummary")
        .BeginObject()
        .Key("TableClass")
        .String(table.table_class)
        .EndObject();
  }
  if (table.sse.enabled) {
    out.Key("SSEDescription")
        .BeginObject()
        .Key("Status")
        .String("ENABLED")
        .Key("SSEType")
        .String(table.sse.sse_type)
        .Key("KMSMasterKeyArn")
        .String(table.sse.kms_master_key_id)
        .EndObject();
  }
  if (table.restored_from) {
    out.Key("RestoreSummary").BeginObject();
    if (!table.restored_from->backup_arn.starts_with(backups::kPointInTimeSource)) {
      out.Key("SourceBackupArn").String(table.restored_from->backup_arn);
    }
    out.Key("SourceTableArn")
        .String(table.restored_from->table_arn)
        .Key("RestoreDateTime")
        .EpochSeconds(table.restored_from->restored_ms)
        .Key("RestoreInProgress")
        .Bool(table.status == TableStatus::kCreating)
        .EndObject();
  }
  if (const StreamSpec* stream = table.EnabledStream()) {
    out.Key("StreamSpecification")
        .BeginObject()
        .Key("StreamEnabled")
        .Bool(true)
        .Key("StreamViewType")
        .String(StreamViewTypeName(stream->view_type))
        .EndObject();
  }
  if (!table.streams.empty()) {  // a disabled stream stays the latest one
    out.Key("LatestStreamLabel").String(table.streams.back().Label());
    out.Key("LatestStreamArn").String(table.StreamArn(table.streams.back()));
  }
  WriteIndexes(out, table, /*local=*/true, index_stats);
  WriteIndexes(out, table, /*local=*/false, index_stats);
  WriteVectorIndexes(out, table, index_stats);
  if (table.replication) WriteReplication(out, table);
  out.Key("DeletionProtectionEnabled").Bool(table.deletion_protection);
  out.EndObject();
}

std::string_view ReplicaStatusName(ReplicaStatus status) {
  switch (status) {
    case ReplicaStatus::kCreating:
      return "CREATING";
    case ReplicaStatus::kUpdating:
      return "UPDATING";
    case ReplicaStatus::kDeleting:
      return "DELETING";
    case ReplicaStatus::kActive:
      break;
  }
  return "ACTIVE";
}

}  // namespace ddbd::server::ops
