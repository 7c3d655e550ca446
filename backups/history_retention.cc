// Trimming point-in-time recovery history to the recovery period.
#include "backups/history_retention.h"

#include <algorithm>

namespace ddbd::backups {

int64_t EarliestRestorableMs(const TableDef& table, int64_t now_ms) {
  constexpr int64_t kDayMs = int64_t{24} * 3600 * 1000;
  return std::max(table.pitr_enabled_ms, now_ms - table.pitr_recovery_days * kDayMs);
}

int64_t LatestRestorableMs(const TableDef& table, int64_t now_ms) {
  constexpr int64_t kRestoreLagMs = 5 * 60 * 1000;
  return std::max(EarliestRestorableMs(table, now_ms), now_ms - kRestoreLagMs);
}

Result<uint64_t> TrimHistories(storage::Database& db, const storage::Catalog& catalog,
                               int64_t now_ms) {
  uint64_t trimmed = 0;
  for (const auto& table : catalog.AllTables()) {
    if (table->pitr_history_id == 0) continue;
    // A restore to the earliest time reads the records after it; those before are unneeded.
    // Until the window is a whole period long it starts at enabling, before any record: no
    // pass needs to read the history.
    const int64_t earliest = EarliestRestorableMs(*table, now_ms);
    if (earliest <= table->pitr_enabled_ms) continue;
    DDBD_ASSIGN_OR_RETURN(uint64_t count, db.TrimHistory(table->pitr_history_id, earliest));
    trimmed += count;
  }
  return trimmed;
}

void StartHistoryRetention(storage::Database& db, const storage::Catalog& catalog,
                           const Clock& clock, Executor& executor, Executor::Duration interval) {
  RunEvery(executor, interval, "point-in-time recovery history", [&db, &catalog, &clock] {
    Result<uint64_t> trimmed = TrimHistories(db, catalog, clock.NowMs());
    return trimmed.ok() ? OkStatus() : Status(trimmed.error());
  });
}

}  // namespace ddbd::backups
