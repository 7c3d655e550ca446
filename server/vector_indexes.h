// VectorIndexes: the in-memory vector indexes of every table, kept in step with the stored
// vector entries. Storage reports each committed entry change (Apply); at start-up every
// index is refilled from its stored entries by a background thread (Load) while the server
// already answers — a search waits for its index (ForSearch) — and another background thread
// builds the HNSW graphs of large partitions. Entry points: Load, Apply, ForSearch, Drop,
// ComparableBytes.
//
// Thread-safety: all methods may be called concurrently.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "model/result.h"
#include "model/table_def.h"
#include "storage/catalog.h"
#include "storage/database.h"
#include "vector/vector_index.h"

namespace ddbd::server {

class VectorIndexes {
 public:
  explicit VectorIndexes(vector::SearchTuning tuning);
  ~VectorIndexes();  // stops the graph builder

  // Starts filling the indexes of every table in `catalog` from their stored entries, in the
  // background. Writes may proceed meanwhile: an entry they change is not overwritten by
  // the older stored copy the load reads. With `graph_dir`, HNSW graphs saved there by
  // SaveGraphs are attached instead of rebuilt — when nothing was written since they were
  // saved, and no write reaches the index while it loads — and the directory is emptied.
  // REQUIRES: called before any write.
  void Load(storage::Database& db, const storage::Catalog& catalog,
            const std::optional<std::string>& graph_dir);
  // Saves every complete graph, with the database's sequence number, to `graph_dir` (at a
  // clean shutdown, after the last request; waits for the start-up load to end).
  Status SaveGraphs(const storage::Database& db, const std::string& graph_dir);
  // Applies committed entry changes (the storage listener).
  void Apply(std::vector<storage::VectorEntryChange> changes);
  // The in-memory index of a vector index, once its stored entries are loaded (waits for
  // the start-up load; an index created later starts empty).
  std::shared_ptr<vector::VectorIndex> ForSearch(const IndexDef& index);
  // Forgets an index (deleted with its table or by UpdateTable).
  void Drop(uint64_t index_id);

  // The comparable bytes of a HASH or INLINE_FILTER value: equal exactly when DynamoDB's
  // equality holds (numbers are canonical).
  static std::string ComparableBytes(const AttributeValue& value);

 private:
  // The start-up load of one index: which keys writes changed while it ran.
  struct Loading {
    std::mutex mutex;
    std::condition_variable done_cv;
    bool done = false;
    std::unordered_set<std::string> changed;
  };
  struct Held {
    std::shared_ptr<vector::VectorIndex> memory;
    std::shared_ptr<Loading> loading;  // null once loaded, or for indexes created later
  };

  Held Find(const IndexDef& index);
  void Insert(const IndexDef& index, vector::VectorIndex& memory, std::string_view key,
              Item entry);
  void LoadAll(storage::Database& db, std::vector<IndexDef> indexes,
               std::optional<std::string> graph_dir);
  void BuildGraphs();
  void Wake();  // tells the builder that a graph may wait

  const vector::SearchTuning tuning_;
  std::mutex mutex_;
  std::unordered_map<uint64_t, Held> indexes_;
  std::condition_variable wake_builder_;
  bool stopping_ = false;
  std::atomic<bool> stopping_load_{false};  // read by the loader without `mutex_`
  uint64_t wakeups_ = 0;
  std::thread builder_;
  std::thread loader_;
};

}  // namespace ddbd::server
