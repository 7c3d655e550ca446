// Point-in-time recovery keeps the history of its recovery period (1 to 35 days, by the clock)
// and no more: a periodic pass on the background executor removes, for every table with PITR,
// the history written before the earliest time it can be restored to.
//
// Entry points: EarliestRestorableMs, LatestRestorableMs, TrimHistories, StartHistoryRetention.
#pragma once

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

// Removes the history no restore at `now_ms` can need. Returns how many records went.
Result<uint64_t> TrimHistories(storage::Database& db, const storage::Catalog& catalog,
                               int64_t now_ms);

// Runs TrimHistories every `interval` on `executor`, at the clock's time.
// REQUIRES: all of these outlive the executor's threads.
void StartHistoryRetention(storage::Database& db, const storage::Catalog& catalog,
                           const Clock& clock, Executor& executor, Executor::Duration interval);

}  // namespace ddbd::backups
