// Retention: DynamoDB keeps stream records for 24 hours. A periodic task on the background
// executor removes, for every stream of every table, the records older than that by the
// clock (each pass reads one record per stream unless there is something to trim).
//
// Entry points: Retention::Start, TrimOnce.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

#include "model/clock.h"
#include "model/executor.h"
#include "model/result.h"
#include "storage/catalog.h"
#include "storage/database.h"

namespace ddbd::streams {

inline constexpr int64_t kRetentionMs = int64_t{24} * 3600 * 1000;

class Retention {
 public:
  // REQUIRES: all of these outlive this object; `executor` is stopped before they go.
  Retention(storage::Database& db, const storage::Catalog& catalog, const Clock& clock,
            Executor& executor, std::chrono::milliseconds interval)
      : db_(db), catalog_(catalog), clock_(clock), executor_(executor), interval_(interval) {}

  // Called before the records of a table's stream written before a time are removed (global
  // tables replicate them first). Set before Start.
  using BeforeTrim = std::function<Status(const TableDef& table, int64_t before_ms)>;
  void SetBeforeTrim(BeforeTrim before_trim) { before_trim_ = std::move(before_trim); }
  // Schedules the passes.
  void Start();
  // Removes the records written before `now_ms` − 24 hours. Returns how many went.
  Result<uint64_t> TrimOnce(int64_t now_ms);

 private:
  storage::Database& db_;
  const storage::Catalog& catalog_;
  const Clock& clock_;
  Executor& executor_;
  const std::chrono::milliseconds interval_;
  BeforeTrim before_trim_;
};

}  // namespace ddbd::streams
