// DescribeContinuousBackups and UpdateContinuousBackups: a table's point-in-time recovery
// setting. Enabling it gives the table a history (backups/history_part.h) that
// RestoreTableToPointInTime restores from; disabling it drops the history, as DynamoDB
// forgets the recovery window.
#include "backups/history_retention.h"
#include "server/ops/common.h"
#include "server/ops/ops.h"

namespace ddbd::server::ops {
namespace {

constexpr int64_t kDefaultRecoveryDays = 35;

std::string RenderDescription(const TableDef& table, int64_t now_ms) {
  wire::JsonWriter out;
  out.BeginObject().Key("ContinuousBackupsDescription").BeginObject();
  out.Key("ContinuousBackupsStatus").String("ENABLED");
  out.Key("PointInTimeRecoveryDescription").BeginObject();
  if (table.pitr_enabled_ms == 0) {
    out.Key("PointInTimeRecoveryStatus").String("DISABLED");
  } else {
    out.Key("PointInTimeRecoveryStatus").String("ENABLED");
    out.Key("RecoveryPeriodInDays").Int(table.pitr_recovery_days);
    out.Key("EarliestRestorableDateTime")
        .EpochSeconds(backups::EarliestRestorableMs(table, now_ms));
    out.Key("LatestRestorableDateTime").EpochSeconds(backups::LatestRestorableMs(table, now_ms));
  }
  out.EndObject().EndObject().EndObject();
  return out.Take();
}

struct PitrChange {
  std::string_view table_name;
  bool enabled = false;
  std::optional<int64_t> recovery_days;
};

Result<PitrChange> ReadPitrChange(wire::JsonObject body) {
  PitrChange change;
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(change.table_name, ReadTableName(body, errors));
  DDBD_ASSIGN_OR_RETURN(auto spec, wire::GetObject(body, "PointInTimeRecoverySpecification"));
  if (!spec) {
    errors.NotNull("pointInTimeRecoverySpecification");
  } else {
    DDBD_ASSIGN_OR_RETURN(auto enabled, wire::GetBool(*spec, "PointInTimeRecoveryEnabled"));
    if (!enabled) errors.NotNull("pointInTimeRecoverySpecification.pointInTimeRecoveryEnabled");
    change.enabled = enabled.value_or(false);
    DDBD_ASSIGN_OR_RETURN(change.recovery_days, wire::GetLong(*spec, "RecoveryPeriodInDays"));
    constexpr std::string_view kDaysPath = "pointInTimeRecoverySpecification.recoveryPeriodInDays";
    if (change.recovery_days && *change.recovery_days < 1) {
      errors.ValueAtLeast(std::to_string(*change.recovery_days), kDaysPath, 1);
    } else if (change.recovery_days && *change.recovery_days > kDefaultRecoveryDays) {
      errors.ValueAtMost(std::to_string(*change.recovery_days), kDaysPath, kDefaultRecoveryDays);
    }
  }
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  if (!change.enabled && change.recovery_days) {
    return Error::Validation(
        "Invalid Request: Cannot specify RecoveryPeriodInDays when "
        "disabling point-in-time recovery.");
  }
  return change;
}

}  // namespace

Result<std::string> DescribeContinuousBackups(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(std::string_view name, ReadOnlyTableName(req.body));
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTableForBackup(name));
  return RenderDescription(*table, ctx.NowMs());
}

// Enabling an enabled table keeps its earliest restorable time (and may change the
// period); disabling forgets the period, which the next enable starts again at 35 days.
Result<std::string> UpdateContinuousBackups(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(PitrChange change, ReadPitrChange(req.body));
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTableForBackup(change.table_name));
  const int64_t now = ctx.NowMs();
  uint64_t new_history = 0;  // for a table that has none yet
  if (change.enabled && table->pitr_history_id == 0) {
    DDBD_ASSIGN_OR_RETURN(new_history, ctx.catalog().AllocateId());
  }
  uint64_t dropped_history = 0;
  DDBD_ASSIGN_OR_RETURN(auto changed, ctx.catalog().Modify(table->id, [&](TableDef& current) {
    if (!change.enabled) {
      dropped_history = current.pitr_history_id;
      current.pitr_enabled_ms = 0;
      current.pitr_recovery_days = kDefaultRecoveryDays;
      current.pitr_history_id = 0;
      return OkStatus();
    }
    if (current.pitr_enabled_ms == 0 || current.pitr_history_id == 0) {
      // The window starts with the history: now (also for a table enabled before ddbd kept it).
      current.pitr_enabled_ms = now;
      current.pitr_recovery_days = kDefaultRecoveryDays;
      current.pitr_history_id = new_history;
    }
    if (change.recovery_days) current.pitr_recovery_days = *change.recovery_days;
    return OkStatus();
  }));
  if (dropped_history != 0) DDBD_RETURN_IF_ERROR(ctx.db().DropHistory(dropped_history));
  return RenderDescription(*changed, now);
}

}  // namespace ddbd::server::ops
