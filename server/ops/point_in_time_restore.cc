// RestoreTableToPointInTime. The table's state at the asked time is its live items rewound by
// its point-in-time recovery history (backups/history_part.h): a raw copy of the items
// (Database::CopyItems) in which every item written since then is put back as it was
// (Database::RewindCopy). The copy is kept like a backup (marked point-in-time: never listed)
// and the restore then runs exactly as a restore from a backup — the target CREATING at once,
// its items written in the background through the normal write path, resumed after a crash —
// and the copy is deleted when it ends.
#include "backups/history_retention.h"
#include "backups/restore.h"
#include "server/ops/background_restore.h"
#include "server/ops/common.h"
#include "server/ops/ops.h"
#include "server/ops/restore_request.h"
#include "server/ops/table_description.h"

namespace ddbd::server::ops {
namespace {

struct PointInTimeRestore {
  RestoreTargetInput target;
  std::string_view source;             // a table name or ARN
  std::optional<double> restore_time;  // epoch seconds; nullopt: the latest restorable
};

Result<PointInTimeRestore> ReadPointInTimeRestore(wire::JsonObject body, std::string_view region) {
  PointInTimeRestore input;
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(input.target, ReadRestoreTarget(body, region, errors));
  DDBD_ASSIGN_OR_RETURN(auto source_arn, wire::GetString(body, "SourceTableArn"));
  DDBD_ASSIGN_OR_RETURN(auto source_name, wire::GetString(body, "SourceTableName"));
  if (source_name) errors.TableName(*source_name, "sourceTableName");
  DDBD_ASSIGN_OR_RETURN(auto use_latest, wire::GetBool(body, "UseLatestRestorableTime"));
  if (auto json = wire::Member(body, "RestoreDateTime")) {
    DDBD_ASSIGN_OR_RETURN(input.restore_time, wire::AsTimestamp(*json));
  }
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  if (source_arn.has_value() == source_name.has_value()) {
    return Error::Validation("Exactly one of SourceTableName and SourceTableArn must be specified");
  }
  input.source = source_arn ? *source_arn : *source_name;
  if (use_latest.value_or(false) == input.restore_time.has_value()) {
    return Error::Validation(
        "Exactly one of RestoreDateTime and UseLatestRestorableTime (true) must be specified");
  }
  return input;
}

// The record of the point-in-time copy of `source` at `at_ms` (its id allocated; no items
// yet): what the restored table is defined from, before anything is copied.
Result<storage::BackupRecord> PointInTimeCopyRecord(OpContext& ctx, const TableDef& source,
                                                    int64_t at_ms) {
  storage::BackupRecord copy;
  DDBD_ASSIGN_OR_RETURN(copy.id, ctx.catalog().AllocateId());
  copy.name = "point-in-time";
  copy.created_ms = at_ms;
  copy.source = source;
  copy.point_in_time = true;
  return copy;
}

}  // namespace

Result<std::string> RestoreTableToPointInTime(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(PointInTimeRestore input, ReadPointInTimeRestore(req.body, ctx.region()));
  DDBD_ASSIGN_OR_RETURN(auto source, ctx.FindTableForBackup(input.source));
  if (ctx.catalog().Find(ctx.scope(), input.target.table_name)) {
    return Error::TableAlreadyExists("Table already exists: " +
                                     std::string(input.target.table_name));
  }
  if (source->pitr_enabled_ms == 0 || source->pitr_history_id == 0) {
    return Error::PointInTimeRecoveryUnavailable(
        "Point in time recovery is not enabled for table '" + source->name + "'");
  }
  const int64_t now = ctx.NowMs();
  const int64_t earliest = backups::EarliestRestorableMs(*source, now);
  const int64_t latest = backups::LatestRestorableMs(*source, now);
  const int64_t at_ms =
      input.restore_time ? static_cast<int64_t>(std::llround(*input.restore_time * 1000)) : latest;
  if (at_ms < earliest || at_ms > latest) {
    return Error::InvalidRestoreTime(
        "RestoreDateTime must be between EarliestRestorableDateTime and "
        "LatestRestorableDateTime");
  }
  // The table is defined (overrides checked) before anything is copied.
  DDBD_ASSIGN_OR_RETURN(storage::BackupRecord copy, PointInTimeCopyRecord(ctx, *source, at_ms));
  DDBD_ASSIGN_OR_RETURN(TableDef definition, backups::RestoredDefinition(
                                                 copy,
                                                 {ctx.scope(), std::string(input.target.table_name),
                                                  ctx.region(), NewTableUuid(), now},
                                                 std::nullopt));
  DDBD_RETURN_IF_ERROR(ApplyRestoreOverrides(input.target, now, definition));
  definition.restored_from = TableRestoreSource{
      std::string(backups::kPointInTimeSource) + backups::BackupArn(copy), source->Arn(), at_ms};
  // The items as they were at `at_ms`: a copy of the live ones, rewound by the history.
  DDBD_RETURN_IF_ERROR(
      backups::SaveCopy(ctx.db(), ctx.scope(), copy, [&]() -> Result<storage::TableStats> {
        DDBD_ASSIGN_OR_RETURN(storage::TableStats copied, ctx.db().CopyItems(source->id, copy.id));
        return ctx.db().RewindCopy(*source, copy.id, copy.created_ms, copied);
      }));
  auto created = ctx.catalog().Create(std::move(definition));
  if (!created.ok()) {  // the copy served nothing
    ctx.db().DeleteBackup(ctx.scope(), copy.id).IgnoreError();
    return created.error();
  }
  StartRestore(ctx.service(), (*created)->id, std::move(copy));
  return RenderRestoringTable(**created);
}

}  // namespace ddbd::server::ops
