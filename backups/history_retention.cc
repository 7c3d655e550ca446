// Trimming point-in-time recovery history to the recovery period.
#include "backups/history_retention.h"

#include <algorithm>

#include "model/log.h"

namespace ddbd::backups {

int64_t EarliestRestorableMs(const TableDef& table, int64_t now_ms) {
  constexpr int64_t kDayMs = int64_t{24} * 3600 * 1000;
  return std::max(table.pitr_enabled_ms, now_ms - table.pitr_recovery_days * kDayMs);
}

int64_t LatestRestorableMs(const TableDef& table, int64_t now_ms) {
  constexpr int64_t kRestoreLagMs = 5 * 60 * 1000;
  return std::max(EarliestRestorableMs(table, now_ms), now_ms - kRestoreLagMs);
}

void HistoryRetention::Start() {
  executor_.Run([this] { Pass(); });
}

void HistoryRetention::Pass() {
  if (auto trimmed = TrimOnce(clock_.NowMs()); !trimmed.ok()) {
    log::Warning("point-in-time recovery history pass failed (retried later): %s",
                 trimmed.error().message().c_str());
  }
  executor_.RunAfter(interval_, [this] { Pass(); });
}

Result<uint64_t> HistoryRetention::TrimOnce(int64_t now_ms) {
  uint64_t trimmed = 0;
  for (const auto& table : catalog_.AllTables()) {
    if (executor_.stopping()) return trimmed;
    if (table->pitr_history_id == 0) continue;
    // A restore to the earliest time reads the records after it; those before are unneeded.
    DDBD_ASSIGN_OR_RETURN(uint64_t count, db_.TrimHistory(table->pitr_history_id,
                                                          EarliestRestorableMs(*table, now_ms)));
    trimmed += count;
  }
  return trimmed;
}

}  // namespace ddbd::backups
