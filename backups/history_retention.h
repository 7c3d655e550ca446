// HistoryRetention: point-in-time recovery keeps the history of its recovery period (1 to 35
// days, by the clock) and no more. A periodic task on the background executor removes, for
// every table with PITR, the history written before the earliest time it can be restored to.
//
// Entry points: HistoryRetention::Start, TrimOnce, EarliestRestorableMs.
#pragma once

#include <chrono>
#include <cstdint>

#include "model/clock.h"
#include "model/executor.h"
#include "model/result.h"
#include "model/table_def.h"
#include "storage/catalog.h"
#include "storage/database.h"

namespace ddbd::backups {

// The earliest time `table` can be restored to at `now_ms`: when PITR was enabled, or the
// start of its recovery period if later. REQUIRES: PITR is enabled.
int64_t EarliestRestorableMs(const TableDef& table, int64_t now_ms);
// The latest: DynamoDB's trails the present by about five minutes (never before the earliest).
int64_t LatestRestorableMs(const TableDef& table, int64_t now_ms);

class HistoryRetention {
 public:
  // REQUIRES: all of these outlive this object; `executor` is stopped before they go.
  HistoryRetention(storage::Database& db, const storage::Catalog& catalog, const Clock& clock,
                   Executor& executor, std::chrono::milliseconds interval)
      : db_(db), catalog_(catalog), clock_(clock), executor_(executor), interval_(interval) {}

  // Schedules the passes.
  void Start();
  // Removes the history no restore at `now_ms` can need. Returns how many records went.
  Result<uint64_t> TrimOnce(int64_t now_ms);

 private:
  void Pass();

  storage::Database& db_;
  const storage::Catalog& catalog_;
  const Clock& clock_;
  Executor& executor_;
  const std::chrono::milliseconds interval_;
};

}  // namespace ddbd::backups
