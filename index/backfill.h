// Backfills: filling an index added to a table that has items — a GSI added by UpdateTable
// (CREATING, Backfilling) or a vector index — from the items already stored, in slices on the
// background executor, each item re-read under its lock (Database::BackfillSlice), so writes
// racing with the backfill end up in the index exactly once. When the last item is done the
// index becomes ACTIVE, not before the times `BackfillTiming` asks for. A backfill cut short
// by a crash starts over at the next start (the index is still CREATING), skipping entries
// already written.
//
// Entry points: Backfills::Start.
// Thread-safety: Start may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include "index/entries_part.h"
#include "model/executor.h"
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

class Backfills {
 public:
  // REQUIRES: all four outlive this object; `executor` is stopped before they are destroyed.
  Backfills(storage::Database& db, storage::Catalog& catalog, const EntriesPart& entries,
            Executor& executor, BackfillTiming timing)
      : db_(db), catalog_(catalog), entries_(entries), executor_(executor), timing_(timing) {}

  // Backfills index `index_id` of table `table_id` and then makes it ACTIVE.
  void Start(uint64_t table_id, uint64_t index_id);

 private:
  struct Job;
  void RunSlice(std::shared_ptr<Job> job);
  void Finish(std::shared_ptr<Job> job);

  storage::Database& db_;
  storage::Catalog& catalog_;
  const EntriesPart& entries_;
  Executor& executor_;
  const BackfillTiming timing_;
};

}  // namespace ddbd::index
