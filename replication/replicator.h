// Replicator: carries every change of a global table's replica to the other replicas, as
// DynamoDB's replication does, asynchronously and after a configurable delay. Its source is
// each replica's stream (a global table always has one; its records carry the new image
// whatever the view type): a pass reads each replica's records in order and writes every
// change made in that replica — not those it received — to each other replica, once the
// change is `delay` old by the service clock (so a frozen clock holds replication back).
// Conflicts resolve by last writer wins (stamps_part.h), so a change applied twice is
// harmless; where each (source stream, target replica) pair has got to is kept in storage
// after each pass, so a restart resumes there.
//
// Entry points: Replicator::Start, RunOnce, CatchUp, Seed, Exclusive.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <utility>

#include "model/clock.h"
#include "model/executor.h"
#include "model/result.h"
#include "storage/catalog.h"
#include "storage/database.h"

namespace ddbd::replication {

class Replicator {
 public:
  // REQUIRES: all of these outlive this object; `executor` is stopped before they go.
  Replicator(storage::Database& db, const storage::Catalog& catalog, const Clock& clock,
             Executor& executor, std::chrono::milliseconds delay)
      : db_(db), catalog_(catalog), clock_(clock), executor_(executor), delay_(delay) {}

  // Schedules the passes: every `interval` while a replicated table exists, none while
  // there is none (until a replica is added through Exclusive).
  void Start(std::chrono::milliseconds interval);
  // One pass over every replicated table: applies the changes that are due.
  Status RunOnce();
  // Applies every change of `table`'s replica so far to the others, due or not (the
  // synchronous replication of multi-Region strong consistency).
  Status CatchUp(const TableDef& table);
  // Applies the changes of `table`'s replica made before `before_ms` to the others: called
  // before stream retention removes them, so that no change is lost to a clock moved on by
  // more than the retention period.
  Status ApplyBefore(const TableDef& table, int64_t before_ms);
  // Runs `change` with no pass in progress (a replica being added or removed).
  Status Exclusive(const std::function<Status()>& change);
  // Where replication from `source` (a replica) to `target` (a new replica, being seeded
  // with a copy of `seed_from`'s items) starts: after the last record written before the
  // copy for `seed_from` itself, and where `seed_from` has got to for every other replica.
  // REQUIRES: called inside Exclusive, before the copy is taken.
  Status Seed(const TableDef& seed_from, const TableDef& target);
  std::chrono::milliseconds delay() const { return delay_; }

 private:
  using Pair = std::pair<uint64_t, uint64_t>;  // source stream id, target table id
  // Applies the changes of `table`'s replica made before `due_before_ms` to the others.
  // REQUIRES: `mutex_` held.
  Status ReplicateFrom(const TableDef& table, int64_t due_before_ms);
  // Schedules the periodic passes, the first after `first`; they end with a pass that finds
  // no replicated table. REQUIRES: `mutex_` held.
  void StartPasses(std::chrono::milliseconds first);
  Status Replicate(const TableDef& source, const StreamSpec& stream, const TableDef& target,
                   int64_t due_before_ms);
  Result<uint64_t> Position(const Pair& pair);
  Status SetPosition(const Pair& pair, uint64_t after);

  storage::Database& db_;
  const storage::Catalog& catalog_;
  const Clock& clock_;
  Executor& executor_;
  const std::chrono::milliseconds delay_;
  std::mutex mutex_;  // one pass (or Exclusive change) at a time
  // False once a pass found no replicated table, until a replica is added (Exclusive): a
  // server without global tables then spends nothing on passes. Guarded by `mutex_`.
  bool active_ = true;
  // The periodic passes' interval (zero until Start), and whether a pass is scheduled: passes
  // stop while nothing is replicated (the timer woke the executor forty times a second).
  // Guarded by `mutex_`.
  std::chrono::milliseconds interval_{0};
  bool scheduled_ = false;
  std::map<Pair, uint64_t> positions_;  // a cache of the stored positions
};

}  // namespace ddbd::replication
