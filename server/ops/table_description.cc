// TableDescription rendering.
#include "server/ops/table_description.h"

namespace ddbd::server::ops {
namespace {

void WriteKeySchema(wire::JsonWriter& out, const TableDef& table) {
  out.BeginArray();
  out.BeginObject()
      .Key("AttributeName").String(table.partition_key.name)
      .Key("KeyType").String("HASH")
      .EndObject();
  if (table.sort_key) {
    out.BeginObject()
        .Key("AttributeName").String(table.sort_key->name)
        .Key("KeyType").String("RANGE")
        .EndObject();
  }
  out.EndArray();
}

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

}  // namespace

std::string_view TableStatusName(TableStatus status) {
  switch (status) {
    case TableStatus::kCreating: return "CREATING";
    case TableStatus::kActive: return "ACTIVE";
    case TableStatus::kDeleting: return "DELETING";
    case TableStatus::kUpdating: return "UPDATING";
  }
  return "ACTIVE";
}

void WriteTableDescription(wire::JsonWriter& out, const TableDef& table,
                           const storage::TableStats& stats, std::optional<TableStatus> status) {
  out.BeginObject();
  out.Key("AttributeDefinitions").BeginArray();
  for (const auto& def : table.attribute_definitions) {
    out.BeginObject()
        .Key("AttributeName").String(def.name)
        .Key("AttributeType").String(KeyAttributeTypeName(def.type))
        .EndObject();
  }
  out.EndArray();
  out.Key("TableName").String(table.name);
  out.Key("KeySchema");
  WriteKeySchema(out, table);
  out.Key("TableStatus").String(TableStatusName(status.value_or(table.status)));
  out.Key("CreationDateTime").EpochSeconds(table.creation_time_ms);
  out.Key("ProvisionedThroughput");
  WriteThroughput(out, table);
  out.Key("TableSizeBytes").Int(stats.size_bytes);
  out.Key("ItemCount").Int(stats.item_count);
  out.Key("TableArn").String(table.Arn());
  out.Key("TableId").String(table.table_uuid);
  out.Key("BillingModeSummary").BeginObject();
  if (table.billing_mode == BillingMode::kPayPerRequest) {
    out.Key("BillingMode").String("PAY_PER_REQUEST");
    out.Key("LastUpdateToPayPerRequestDateTime").EpochSeconds(table.billing_mode_updated_ms);
  } else {
    out.Key("BillingMode").String("PROVISIONED");
  }
  out.EndObject();
  if (table.table_class != "STANDARD") {
    out.Key("TableClassSummary").BeginObject().Key("TableClass").String(table.table_class)
        .EndObject();
  }
  if (table.sse.enabled) {
    out.Key("SSEDescription").BeginObject()
        .Key("Status").String("ENABLED")
        .Key("SSEType").String(table.sse.sse_type)
        .Key("KMSMasterKeyArn").String(table.sse.kms_master_key_id)
        .EndObject();
  }
  out.Key("DeletionProtectionEnabled").Bool(table.deletion_protection);
  out.EndObject();
}

}  // namespace ddbd::server::ops
