// Imports run in the background, as DynamoDB runs them: ImportTable creates its table
// (CREATING) and answers at once (IN_PROGRESS); here the objects under the source prefix are
// read in key order, decompressed, parsed (import_reader.h), each item checked as a PutItem
// would check it and written through the normal write path (indexes, statistics), then the
// table becomes ACTIVE and the import COMPLETED — or FAILED with ItemValidationError when any
// item or object could not be imported (the others are in the table, as in DynamoDB). Each
// error is an error record (import_record.h).
//
// An import a crash cut short runs again from its first object at the next start-up
// (writing an item again writes the same item); ResumeInterrupted says which tables it
// resumed, so that start-up recovery leaves them CREATING.
//
// Entry point: ImportJobs.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "model/clock.h"
#include "model/executor.h"
#include "objects/object_store.h"
#include "portability/import_record.h"
#include "storage/catalog.h"
#include "storage/database.h"

namespace ddbd::portability {

class ImportJobs {
 public:
  // Checks an item as a PutItem of it into `table` would be checked (key attributes, sizes,
  // index key types); returns its primary key or DynamoDB's ValidationException.
  using ItemCheck = std::function<Result<PrimaryKey>(const TableDef& table, const Item& item)>;

  ImportJobs(storage::Database& db, storage::Catalog& catalog, objects::ObjectStore& store,
             Executor& executor, const Clock& clock)
      : db_(db), catalog_(catalog), store_(store), executor_(executor), clock_(clock) {}

  // Set once, before any import starts.
  void SetItemCheck(ItemCheck check) { check_ = std::move(check); }
  // Saves `record` and, when it is IN_PROGRESS, runs it in the background.
  Status Start(const ImportRecord& record);
  // Runs again every import left IN_PROGRESS by the last process; returns their tables' ids.
  std::set<uint64_t> ResumeInterrupted();
  Result<std::optional<ImportRecord>> Find(std::string_view id);
  // Every import, oldest first.
  Result<std::vector<ImportRecord>> All();

 private:
  void Run(ImportRecord record);
  Status ImportObjects(const TableDef& table, ImportRecord& record);

  storage::Database& db_;
  storage::Catalog& catalog_;
  objects::ObjectStore& store_;
  Executor& executor_;
  const Clock& clock_;
  ItemCheck check_;
};

}  // namespace ddbd::portability
