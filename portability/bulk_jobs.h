// Bulk operations run in the background, as DynamoDB runs them: StartBulkPutItems saves the
// operation (IN_PROGRESS) and answers; here the objects under the input prefix are read in
// key order, decompressed and split into records (bulk_reader.h), each record checked and
// turned into a PutItem under its own condition by the server (Preparer), and written in
// batches through the normal write path (indexes, streams, statistics, history). A record
// that fails its checks is an ERROR of the report; a condition that does not hold leaves its
// item alone and is a CONDITION_CHECK_FAILURE (bulk_report.h). The operation ends COMPLETED,
// COMPLETED_WITH_ERRORS (some record failed), FAILED, or — after CancelBulkOperation,
// through CANCELLING at the next checkpoint — CANCELLED.
//
// The work is sliced (a slice reads up to kSliceRecords records, then yields its thread).
// Each batch commits with the operation's checkpoint (its position, counts, usage and pending
// report lines) in one RocksDB batch, so an operation a crash cut short resumes where its
// last batch ended: no item is written twice and no condition is checked twice.
// MaxWriteRequestUnits paces the slices (write units per second of the steady clock).
//
// Entry point: BulkJobs.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "model/clock.h"
#include "model/executor.h"
#include "objects/object_store.h"
#include "portability/bulk_record.h"
#include "storage/catalog.h"
#include "storage/database.h"
#include "wire/json_reader.h"

namespace ddbd::portability {

class BulkJobs {
 public:
  // One record as the server prepared it: a PutItem of `item` (under the record's condition)
  // ready to run.
  struct PreparedPut {
    Item item;
    storage::ItemWrite write;
  };
  // Checks a record (its JSON object) as a PutItem of it into `table` would be checked;
  // returns the write or the record's ValidationException.
  using Preparer = std::function<Result<PreparedPut>(std::shared_ptr<const TableDef> table,
                                                     wire::JsonObject record)>;
  // Adds what one committed write cost the table and its indexes to `usage`.
  using Meter = std::function<void(const TableDef& table, const storage::WriteOutcome& outcome,
                                   BulkUsage& usage)>;

  BulkJobs(storage::Database& db, storage::Catalog& catalog, objects::ObjectStore& store,
           Executor& executor, const Clock& clock)
      : db_(db), catalog_(catalog), store_(store), executor_(executor), clock_(clock) {}

  // Set once, before any operation starts.
  void SetHooks(Preparer prepare, Meter meter) {
    prepare_ = std::move(prepare);
    meter_ = std::move(meter);
  }
  // Saves `record` and, when it is IN_PROGRESS, runs it in the background.
  Status Start(const BulkRecord& record);
  // Asks operation `id` to stop: an IN_PROGRESS one becomes CANCELLING (and CANCELLED at its
  // next checkpoint); any other is left as it is. Returns the record after the request, or
  // nullopt when there is no such operation.
  Result<std::optional<BulkRecord>> Cancel(std::string_view id);
  // Runs again every operation the last process left IN_PROGRESS or CANCELLING.
  void ResumeInterrupted();
  Result<std::optional<BulkRecord>> Find(std::string_view id);
  // Every operation, oldest first.
  Result<std::vector<BulkRecord>> All();

  // Records a slice reads before it yields its thread.
  static constexpr size_t kSliceRecords = 1000;

 private:
  struct Run;
  struct Batch;

  void Schedule(std::shared_ptr<Run> run, Executor::Duration delay);
  void Step(std::shared_ptr<Run> run);
  // Reads and writes up to kSliceRecords records; false when the input is done.
  Result<bool> Slice(Run& run, std::shared_ptr<const TableDef> table);
  // Opens the object the checkpoint points at (skipping the records done); false when every
  // object is done.
  Result<bool> OpenObject(Run& run);
  // Commits `batch` (possibly empty) with the checkpoint.
  Status Commit(Run& run, const TableDef& table, Batch& batch);
  // Writes the batch's records one by one, after a part refused the batch as a whole.
  Status CommitEach(Run& run, const TableDef& table, Batch& batch);
  // Counts what the writes did: condition-check failures, usage, pacing.
  void Apply(Run& run, BulkRecord& record, const TableDef& table, const Batch& batch,
             const std::vector<storage::WriteOutcome>& outcomes, size_t first);
  void Finish(std::shared_ptr<Run> run, JobStatus status, std::optional<Error> failure);
  bool CancelRequested(std::string_view id);

  storage::Database& db_;
  storage::Catalog& catalog_;
  objects::ObjectStore& store_;
  Executor& executor_;
  const Clock& clock_;
  Preparer prepare_;
  Meter meter_;
  // Held while a checkpoint commits and while a cancellation is recorded, so that neither
  // undoes the other.
  std::mutex mutex_;
  std::set<std::string, std::less<>> cancelling_;
};

}  // namespace ddbd::portability
