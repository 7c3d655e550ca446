// Backfills: filling an index added to a table that has items — a GSI added by UpdateTable
// (CREATING, Backfilling) or a vector index — from the items already stored, in slices on the
// background executor, each item re-read under its lock (Database::BackfillSlice), so writes
// racing with the backfill end up in the index exactly once. When the last item is done the
// index becomes ACTIVE, not before the times `BackfillTiming` asks for. A backfill cut short
// by a crash starts over at the next start (the index is still CREATING), skipping entries
// already written.
//
// Progress: a backfill logs its start and end (info), a line per slice (debug) and at most one
// progress line every 10 seconds (info); Backfills::Running reports the backfills under way.
//
// Entry points: Backfills::Start, Backfills::Running.
// Thread-safety: Start and Running may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "index/entries_part.h"
#include "model/executor.h"
#include "model/log.h"
#include "storage/catalog.h"
#include "storage/database.h"

namespace ddbd::index {

struct BackfillTiming {
  // A vector index stays this long in its allocation phase (CREATING, Backfilling false)
  // before it backfills, and is ACTIVE no sooner than `vector_build_minimum` after Start.
  std::chrono::milliseconds vector_allocation{0};
  std::chrono::milliseconds vector_build_minimum{0};
  // -delayTransientStatuses: no index is ACTIVE sooner than this after Start.
  std::chrono::milliseconds transient_status_delay{0};
};

// A backfill under way: the items done so far of those the table held when it started.
struct BackfillProgress {
  uint64_t table_id = 0;
  uint64_t index_id = 0;
  uint64_t items_done = 0;
  uint64_t items_total = 0;
};

class Backfills {
 public:
  // REQUIRES: all four outlive this object; `executor` is stopped before they are destroyed.
  Backfills(storage::Database& db, storage::Catalog& catalog, const EntriesPart& entries,
            Executor& executor, BackfillTiming timing)
      : db_(db), catalog_(catalog), entries_(entries), executor_(executor), timing_(timing) {}

  // Backfills index `index_id` of table `table_id` and then makes it ACTIVE.
  void Start(uint64_t table_id, uint64_t index_id);

  // The backfills reading items now (not those waiting to start nor their indexes' minimum
  // build time), by index id.
  std::vector<BackfillProgress> Running() const;

 private:
  struct Job;
  void RunSlice(std::shared_ptr<Job> job);
  void Finish(std::shared_ptr<Job> job);
  void Forget(const Job& job);  // no longer Running()
  // One line about a backfill: where it is (the namespace left out for the default one), how
  // far, and — when it ended — how long it took.
  static void Log(log::Level level, std::string_view message, const TableDef& table, const Job& job,
                  std::optional<double> seconds = std::nullopt);

  storage::Database& db_;
  storage::Catalog& catalog_;
  const EntriesPart& entries_;
  Executor& executor_;
  const BackfillTiming timing_;
  mutable std::mutex mutex_;
  std::map<uint64_t, std::shared_ptr<Job>> running_;  // by index id
};

}  // namespace ddbd::index
