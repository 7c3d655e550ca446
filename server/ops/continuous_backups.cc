// DescribeContinuousBackups and UpdateContinuousBackups: a table's point-in-time recovery
// setting, as infrastructure tools (Terraform, CDK) read and write it next to the table.
// ddbd keeps no history to restore from, so only the setting and its description exist;
// RestoreTableToPointInTime is not offered.
#include "server/ops/common.h"
#include "server/ops/ops.h"

namespace ddbd::server::ops {
namespace {

constexpr int64_t kDefaultRecoveryDays = 35;
// DynamoDB's latest restorable time trails the present by about five minutes.
constexpr int64_t kRestoreLagMs = 5 * 60 * 1000;

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
    out.Key("EarliestRestorableDateTime").EpochSeconds(table.pitr_enabled_ms);
    out.Key("LatestRestorableDateTime")
        .EpochSeconds(std::max(table.pitr_enabled_ms, now_ms - kRestoreLagMs));
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
  DDBD_ASSIGN_OR_RETURN(auto changed, ctx.catalog().Modify(table->id, [&](TableDef& current) {
    if (!change.enabled) {
      current.pitr_enabled_ms = 0;
      current.pitr_recovery_days = kDefaultRecoveryDays;
      return OkStatus();
    }
    if (current.pitr_enabled_ms == 0) {
      current.pitr_enabled_ms = now;
      current.pitr_recovery_days = kDefaultRecoveryDays;
    }
    if (change.recovery_days) current.pitr_recovery_days = *change.recovery_days;
    return OkStatus();
  }));
  return RenderDescription(*changed, now);
}

}  // namespace ddbd::server::ops
