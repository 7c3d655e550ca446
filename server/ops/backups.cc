// On-demand backups: CreateBackup, DescribeBackup, ListBackups, DeleteBackup and
// RestoreTableFromBackup. A backup is a raw copy of the table's items under an id of its
// own (Database::CopyItems) and a record — the table's definition as it was, and the
// backup's name, time and size — in the catalog. A restore creates the target table from
// that definition, CREATING, and answers; the background restore (background_restore.h) then
// writes every copied item into it through the normal write path, so its indexes, statistics
// and item collections are built as for any write. A backup being restored cannot be deleted.

#include "backups/restore.h"
#include "server/ops/background_restore.h"
#include "server/ops/common.h"
#include "server/ops/ops.h"
#include "server/ops/restore_request.h"
#include "server/ops/table_description.h"
#include "server/ops/transient_status.h"

namespace ddbd::server::ops {
namespace {

using backups::BackupArn;
using storage::BackupRecord;

Result<std::string_view> ReadBackupArn(wire::JsonObject body) {
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(std::string_view arn,
                        ReadArn(body, "BackupArn", "backupArn", 37, 1024, errors));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  return arn;
}

Result<BackupRecord> FindBackup(OpContext& ctx, std::string_view arn) {
  DDBD_ASSIGN_OR_RETURN(std::vector<BackupRecord> backups, ctx.db().Backups(ctx.scope()));
  for (BackupRecord& backup : backups) {
    if (!backup.point_in_time && BackupArn(backup) == arn) return std::move(backup);
  }
  return Error::BackupNotFound("Backup not found: " + std::string(arn));
}

void WriteBackupDetails(wire::JsonWriter& out, const BackupRecord& backup,
                        std::string_view status) {
  out.BeginObject()
      .Key("BackupArn")
      .String(BackupArn(backup))
      .Key("BackupName")
      .String(backup.name)
      .Key("BackupSizeBytes")
      .Int(backup.size_bytes)
      .Key("BackupStatus")
      .String(status)
      .Key("BackupType")
      .String("USER")
      .Key("BackupCreationDateTime")
      .EpochSeconds(backup.created_ms)
      .EndObject();
}

std::string RenderDescription(const BackupRecord& backup, std::string_view status) {
  const TableDef& table = backup.source;
  wire::JsonWriter out;
  out.BeginObject().Key("BackupDescription").BeginObject();
  out.Key("BackupDetails");
  WriteBackupDetails(out, backup, status);
  out.Key("SourceTableDetails")
      .BeginObject()
      .Key("TableName")
      .String(table.name)
      .Key("TableId")
      .String(table.table_uuid)
      .Key("TableArn")
      .String(table.Arn())
      .Key("TableSizeBytes")
      .Int(backup.size_bytes)
      .Key("ItemCount")
      .Int(backup.item_count)
      .Key("TableCreationDateTime")
      .EpochSeconds(table.creation_time_ms)
      .Key("BillingMode")
      .String(table.billing_mode == BillingMode::kPayPerRequest ? "PAY_PER_REQUEST"
                                                                : "PROVISIONED");
  out.Key("KeySchema");
  WriteKeySchema(out, table);
  out.Key("ProvisionedThroughput")
      .BeginObject()
      .Key("ReadCapacityUnits")
      .Int(table.throughput.read_capacity_units)
      .Key("WriteCapacityUnits")
      .Int(table.throughput.write_capacity_units)
      .EndObject();
  out.EndObject();
  out.Key("SourceTableFeatureDetails").BeginObject();
  for (const bool local : {true, false}) {
    bool any = false;
    for (const IndexDef& index : table.indexes) {
      if (index.local != local || index.IsVector()) continue;
      if (!any) out.Key(local ? "LocalSecondaryIndexes" : "GlobalSecondaryIndexes").BeginArray();
      any = true;
      out.BeginObject().Key("IndexName").String(index.name).EndObject();
    }
    if (any) out.EndArray();
  }
  if (const StreamSpec* stream = table.EnabledStream()) {
    out.Key("StreamDescription")
        .BeginObject()
        .Key("StreamEnabled")
        .Bool(true)
        .Key("StreamViewType")
        .String(StreamViewTypeName(stream->view_type))
        .EndObject();
  }
  out.Key("TimeToLiveDescription").BeginObject();
  if (table.ttl_attribute) out.Key("AttributeName").String(*table.ttl_attribute);
  out.Key("TimeToLiveStatus").String(table.ttl_attribute ? "ENABLED" : "DISABLED");
  out.EndObject();
  out.EndObject();
  out.EndObject().EndObject();
  return out.Take();
}

}  // namespace

Result<std::string> CreateBackup(OpContext& ctx, const Request& req) {
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(std::string_view table_name, ReadTableName(req.body, errors));
  DDBD_ASSIGN_OR_RETURN(auto name, wire::GetString(req.body, "BackupName"));
  if (!name) {
    errors.NotNull("backupName");
  } else {
    errors.TableName(*name, "backupName");
  }
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTableForBackup(table_name));
  BackupRecord backup;
  DDBD_ASSIGN_OR_RETURN(backup.id, ctx.catalog().AllocateId());
  backup.name = std::string(*name);
  backup.created_ms = ctx.NowMs();
  backup.source = *table;
  DDBD_RETURN_IF_ERROR(backups::SaveCopy(ctx.db(), ctx.scope(), backup,
                                         [&] { return ctx.db().CopyItems(table->id, backup.id); }));

  wire::JsonWriter out;
  out.BeginObject().Key("BackupDetails");
  WriteBackupDetails(out, backup, "AVAILABLE");
  out.EndObject();
  return out.Take();
}

Result<std::string> DescribeBackup(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(std::string_view arn, ReadBackupArn(req.body));
  DDBD_ASSIGN_OR_RETURN(BackupRecord backup, FindBackup(ctx, arn));
  return RenderDescription(backup, "AVAILABLE");
}

Result<std::string> DeleteBackup(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(std::string_view arn, ReadBackupArn(req.body));
  DDBD_ASSIGN_OR_RETURN(BackupRecord backup, FindBackup(ctx, arn));
  for (const auto& table : ctx.catalog().AllTables()) {
    if (table->scope == ctx.scope() && table->status == TableStatus::kCreating &&
        table->restored_from && table->restored_from->backup_arn == arn) {
      return Error::BackupInUse("Backup is being restored to table " + table->name + ": " +
                                std::string(arn));
    }
  }
  DDBD_RETURN_IF_ERROR(ctx.db().DeleteBackup(ctx.scope(), backup.id));
  return RenderDescription(backup, "DELETED");
}

Result<std::string> ListBackups(OpContext& ctx, const Request& req) {
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(auto table_name, wire::GetString(req.body, "TableName"));
  if (table_name) errors.TableName(*table_name, "tableName");
  DDBD_ASSIGN_OR_RETURN(auto limit, wire::GetLong(req.body, "Limit"));
  if (limit && *limit < 1) errors.ValueAtLeast(std::to_string(*limit), "limit", 1);
  if (limit && *limit > 100) errors.ValueAtMost(std::to_string(*limit), "limit", 100);
  DDBD_ASSIGN_OR_RETURN(auto type, ReadEnum(req.body, "BackupType", "backupType",
                                            {"USER", "SYSTEM", "AWS_BACKUP", "ALL"}, errors));
  DDBD_ASSIGN_OR_RETURN(auto start, wire::GetString(req.body, "ExclusiveStartBackupArn"));
  // Time bounds are epoch seconds (fractions allowed); lower inclusive, upper exclusive.
  // Pinned by:
  // test_malformed_requests.py::test_every_member_of_every_operation_with_every_wrong_type
  auto bound = [&](std::string_view member) -> Result<std::optional<double>> {
    auto json = wire::Member(req.body, member);
    if (!json) return std::optional<double>();
    return wire::AsTimestamp(*json);
  };
  DDBD_ASSIGN_OR_RETURN(const std::optional<double> lower, bound("TimeRangeLowerBound"));
  DDBD_ASSIGN_OR_RETURN(const std::optional<double> upper, bound("TimeRangeUpperBound"));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  DDBD_ASSIGN_OR_RETURN(std::vector<BackupRecord> backups, ctx.db().Backups(ctx.scope()));

  std::vector<BackupRecord> listed;
  std::vector<std::string> arns;
  for (BackupRecord& backup : backups) {
    const double created = static_cast<double>(backup.created_ms) / 1000;
    if (backup.point_in_time || (table_name && backup.source.name != *table_name) ||
        (type && *type != "USER" && *type != "ALL") || (lower && created < *lower) ||
        (upper && created >= *upper)) {
      continue;
    }
    arns.push_back(BackupArn(backup));
    listed.push_back(std::move(backup));
  }
  const PageRange page = PageAfter(arns, start, static_cast<size_t>(limit.value_or(100)));
  wire::JsonWriter out;
  out.BeginObject().Key("BackupSummaries").BeginArray();
  for (size_t i = page.begin; i < page.end; ++i) {
    const BackupRecord& backup = listed[i];
    out.BeginObject()
        .Key("TableName")
        .String(backup.source.name)
        .Key("TableId")
        .String(backup.source.table_uuid)
        .Key("TableArn")
        .String(backup.source.Arn())
        .Key("BackupArn")
        .String(arns[i])
        .Key("BackupName")
        .String(backup.name)
        .Key("BackupCreationDateTime")
        .EpochSeconds(backup.created_ms)
        .Key("BackupStatus")
        .String("AVAILABLE")
        .Key("BackupType")
        .String("USER")
        .Key("BackupSizeBytes")
        .Int(backup.size_bytes)
        .EndObject();
  }
  out.EndArray();
  if (page.more) out.Key("LastEvaluatedBackupArn").String(arns[page.end - 1]);
  out.EndObject();
  return out.Take();
}

// The restored table has the backup's keys, indexes, billing and encryption settings (or
// the overrides given); like DynamoDB, not its streams, TTL, tags, point-in-time
// recovery or deletion protection.
Result<std::string> RestoreTableFromBackup(OpContext& ctx, const Request& req) {
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(RestoreTargetInput target,
                        ReadRestoreTarget(req.body, ctx.region(), errors));
  DDBD_ASSIGN_OR_RETURN(auto arn, wire::GetString(req.body, "BackupArn"));
  if (!arn) errors.NotNull("backupArn");
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  DDBD_ASSIGN_OR_RETURN(BackupRecord backup, FindBackup(ctx, *arn));
  if (ctx.catalog().Find(ctx.scope(), target.table_name)) {
    return Error::TableAlreadyExists("Table already exists: " + std::string(target.table_name));
  }
  // CREATING (not readable or writable) until every item is in, which the background restore
  // writes (background_restore.h).
  DDBD_ASSIGN_OR_RETURN(TableDef definition,
                        backups::RestoredDefinition(backup,
                                                    {ctx.scope(), std::string(target.table_name),
                                                     ctx.region(), NewTableUuid(), ctx.NowMs()},
                                                    std::nullopt));
  DDBD_RETURN_IF_ERROR(ApplyRestoreOverrides(target, ctx.NowMs(), definition));
  DDBD_ASSIGN_OR_RETURN(auto created, ctx.catalog().Create(std::move(definition)));
  StartRestore(ctx.service(), created->id, std::move(backup));
  return RenderRestoringTable(*created);
}

}  // namespace ddbd::server::ops
