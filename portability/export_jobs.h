// Exports run in the background, as DynamoDB runs them: ExportTableToPointInTime answers at
// once (IN_PROGRESS) and the objects are written here, on the background executor, before the
// record says COMPLETED (or FAILED, with DynamoDB's FailureCode and FailureMessage).
//
// A full export first copies the table's items and rewinds the copy to the export time by
// the table's point-in-time history (as a restore does), so that writes made meanwhile are
// not in it; the copy is dropped at the end. Every step can run again: an export a crash cut
// short runs again from its start at the next start-up (ResumeInterrupted), overwriting the
// objects it had written.
//
// Entry point: ExportJobs.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "model/clock.h"
#include "model/executor.h"
#include "objects/object_store.h"
#include "portability/export_record.h"
#include "storage/catalog.h"
#include "storage/database.h"

namespace ddbd::portability {

class ExportJobs {
 public:
  ExportJobs(storage::Database& db, storage::Catalog& catalog, objects::ObjectStore& store,
             Executor& executor, const Clock& clock)
      : db_(db), catalog_(catalog), store_(store), executor_(executor), clock_(clock) {}

  // Saves `record` (IN_PROGRESS) and runs it in the background.
  Status Start(const ExportRecord& record);
  // Runs again every export left IN_PROGRESS by the last process.
  void ResumeInterrupted();
  // The export with id `id`, nullopt when there is none.
  Result<std::optional<ExportRecord>> Find(std::string_view id);
  // Every export, oldest first.
  Result<std::vector<ExportRecord>> All();
  // Forgets, every `interval`, the exports and imports that ended more than 90 days ago by
  // the clock (as DynamoDB lists them no longer).
  static void StartRetention(storage::Database& db, const Clock& clock, Executor& executor,
                             Executor::Duration interval);

 private:
  void Run(ExportRecord record);
  Status Export(ExportRecord& record);
  void Finish(ExportRecord record, const Status& outcome);

  storage::Database& db_;
  storage::Catalog& catalog_;
  objects::ObjectStore& store_;
  Executor& executor_;
  const Clock& clock_;
};

}  // namespace ddbd::portability
