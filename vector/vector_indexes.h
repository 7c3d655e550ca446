// VectorIndexes: the in-memory vector indexes of every table, kept in step with the stored
// vector entries. The index module reports each committed entry change (Apply); at start-up
// every index is refilled from its stored entries (Load, through an EntrySource that storage
// stands behind) while the server already answers — a search waits for its index
// (ForSearch) — and the HNSW graphs of large partitions are built in the background. Both
// run as tasks on the service's Executor: the load as one task, graph building as slices
// that re-submit themselves while work remains.
//
// An entry's identity is its item's table key, as model/key_encoding's ordered bytes (so
// ties between equal scores are broken in key order).
//
// Entry points: Load, SaveGraphs, Apply, ForSearch, Drop, KeyOfHit, ComparableBytes.
// Thread-safety: all methods may be called concurrently.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "model/executor.h"
#include "model/result.h"
#include "model/table_def.h"
#include "vector/entry_change.h"
#include "vector/vector_index.h"

namespace ddbd::vector {

// Where stored entries come from (the database, behind an adapter that knows it).
class EntrySource {
 public:
  virtual ~EntrySource() = default;
  // Every stored entry of one index.
  virtual Status ForEachEntry(uint64_t index_id, const std::function<void(Item entry)>& visit) = 0;
  // The store's write sequence: equal at two moments only if nothing was written between.
  virtual uint64_t LatestSequence() const = 0;
};

class VectorIndexes {
 public:
  // REQUIRES: `executor` outlives this object, and is stopped before it is destroyed.
  VectorIndexes(SearchTuning tuning, Executor& executor);
  ~VectorIndexes();  // makes a graph build in progress give up

  // Starts filling `indexes` (every vector index of every table) from their stored entries,
  // in the background. Writes may proceed meanwhile: an entry they change is not overwritten
  // by the older stored copy the load reads. With `graph_dir`, HNSW graphs saved there by
  // SaveGraphs are attached instead of rebuilt — when nothing was written since they were
  // saved, and no write reaches the index while it loads — and the directory is emptied.
  // REQUIRES: called once, before any write; `source` outlives the load.
  void Load(EntrySource& source, std::vector<std::shared_ptr<const TableDef>> tables,
            const std::optional<std::string>& graph_dir);
  // Saves every complete graph, with the store's sequence number, to `graph_dir` (at a clean
  // shutdown, after the last request; waits for the start-up load to end).
  Status SaveGraphs(uint64_t sequence, const std::string& graph_dir);
  // Applies one committed entry change (the index module's listener).
  void Apply(EntryChange change);
  // The in-memory index of a vector index, once its stored entries are loaded (waits for
  // the start-up load; an index created later starts empty).
  std::shared_ptr<VectorIndex> ForSearch(const IndexDef& index);
  // Forgets an index (deleted with its table or by UpdateTable).
  void Drop(uint64_t index_id);

  // The table key of a search hit of one of `table`'s vector indexes.
  static Result<PrimaryKey> KeyOfHit(const VectorIndex::Hit& hit, const TableDef& table);
  // The comparable bytes of a HASH or INLINE_FILTER value: equal exactly when DynamoDB's
  // equality holds (numbers are canonical).
  static std::string ComparableBytes(const AttributeValue& value);

 private:
  // The start-up load of one index: which entries writes changed while it ran.
  struct Loading {
    std::mutex mutex;
    std::condition_variable done_cv;
    bool done = false;
    std::unordered_set<std::string> changed;
  };
  struct Held {
    std::shared_ptr<VectorIndex> memory;
    std::shared_ptr<Loading> loading;  // null once loaded, or for indexes created later
  };

  Held Find(const IndexDef& index);
  void Insert(const IndexDef& index, VectorIndex& memory, std::string_view key, Item entry);
  void LoadAll(EntrySource& source, std::vector<std::shared_ptr<const TableDef>> tables,
               std::optional<std::string> graph_dir);
  // One slice of graph building (a BuildStep per index that needs one); re-submits itself
  // while work remains.
  void BuildSlice();
  void Wake();  // a graph may wait: makes sure a build slice is scheduled

  const SearchTuning tuning_;
  Executor& executor_;
  std::mutex mutex_;
  std::unordered_map<uint64_t, Held> indexes_;
  // At most one build slice is queued or running; a Wake meanwhile asks it to look again.
  bool build_scheduled_ = false;
  bool build_requested_ = false;
  // Builds in progress, by index (touched by the build slice only, one at a time).
  struct BuildRun {
    std::chrono::steady_clock::time_point started;
    size_t graphs_before = 0;
  };
  std::unordered_map<uint64_t, BuildRun> builds_;
  bool load_running_ = false;
  std::condition_variable load_done_;
  std::atomic<bool> stopping_{false};
};

}  // namespace ddbd::vector
