// Sweeper: Time to Live's deletions, and the backfill of the expiry keyspace.
//
// DynamoDB deletes expired items within days; a local server is most useful when it does so
// promptly, so the sweeper runs a pass every `interval` (and at once when woken), as a task on
// the background executor. A pass reads, for each table with TTL enabled, only the expiry
// records due now (Database::ExpiredItems) — its cost follows the number of expired items,
// not the size of the tables — and deletes each item as DeleteItem would (indexes, statistics
// and vector indexes follow in the same batch; the stream record names the service), after
// checking again under the item's lock that it still expires. The pause after a pass is at
// least 20 times its duration, so passes never take more than about 5 % of a core. While a
// test controls the clock (Clock::UnderTestControl), periodic passes delete nothing: expiry
// then happens when the test asks for it (SweepNow), so what a sweep reports is exact.
//
// When TTL is enabled on a table, IndexTable fills the expiry keyspace from the items already
// stored, in slices, and then marks the table `ttl_indexed`; at start-up Resume restarts the
// backfill of any table a crash left unindexed.
//
// Entry points: Start, Wake, SweepOnce, SweepNow, IndexTable, Resume.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>

#include "model/clock.h"
#include "model/executor.h"
#include "model/result.h"
#include "storage/catalog.h"
#include "storage/database.h"

namespace ddbd::ttl {

class Sweeper {
 public:
  // REQUIRES: all of these outlive the sweeper; `executor` is stopped before they go.
  Sweeper(storage::Database& db, storage::Catalog& catalog, const Clock& clock, Executor& executor,
          std::chrono::milliseconds interval)
      : db_(db), catalog_(catalog), clock_(clock), executor_(executor), interval_(interval) {}

  // Schedules the passes.
  void Start();
  // Runs a pass soon (TTL was just enabled on a table).
  void Wake();
  // One pass over every table with TTL enabled, at time `now_ms`: deletes the items expired
  // then (re-checked under each item's lock, so a concurrent update that extends an item's
  // life wins). Returns the number of items deleted.
  Result<uint64_t> SweepOnce(int64_t now_ms);
  // A pass at the clock's current time, on the caller's thread, once the expiry keyspace of
  // every TTL table is complete (a backfill still running is waited for, up to `wait`):
  // what the control API's POST /ddbd/ttl/sweep runs. Returns the number of items deleted.
  Result<uint64_t> SweepNow(std::chrono::milliseconds wait = std::chrono::seconds(60));
  // Items deleted by every pass since the process started (for metrics).
  uint64_t deleted_total() const { return deleted_total_.load(std::memory_order_relaxed); }

  // Fills the expiry keyspace of a table on which TTL was just enabled, in the background.
  void IndexTable(uint64_t table_id);
  // At start-up: resumes the backfill of every TTL table not yet indexed.
  void Resume();

 private:
  struct Backfill;
  Result<uint64_t> SweepTable(const TableDef& table, int64_t now_ms);
  void Pass();
  void IndexSlice(std::shared_ptr<Backfill> backfill);

  storage::Database& db_;
  storage::Catalog& catalog_;
  const Clock& clock_;
  Executor& executor_;
  const std::chrono::milliseconds interval_;
  std::mutex mutex_;
  bool started_ = false;
  std::atomic<uint64_t> deleted_total_{0};
  bool pass_scheduled_ = false;  // a pass is queued (woken) besides the periodic one
};

}  // namespace ddbd::ttl
