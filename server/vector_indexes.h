// VectorIndexes: the in-memory vector indexes of every table, kept in step with the stored
// vector entries. Storage reports each committed entry change (Apply); at start-up every
// index is refilled from its stored entries (Load), and a background thread builds the HNSW
// graphs of large partitions. Entry points: Load, Apply, Find, Drop, ScopeOf, FilterValueOf.
//
// Thread-safety: all methods may be called concurrently.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
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

  // Fills the indexes of every table in `catalog` from their stored entries.
  Status Load(storage::Database& db, const storage::Catalog& catalog);
  // Applies committed entry changes (the storage listener).
  void Apply(std::vector<storage::VectorEntryChange> changes);
  // The in-memory index of a vector index (created empty if it has no entry yet).
  std::shared_ptr<vector::VectorIndex> Find(const IndexDef& index);
  // Forgets an index (deleted with its table or by UpdateTable).
  void Drop(uint64_t index_id);

  // The comparable bytes of a HASH or INLINE_FILTER value: equal exactly when DynamoDB's
  // equality holds (numbers are canonical).
  static std::string ComparableBytes(const AttributeValue& value);

 private:
  void Insert(const IndexDef& index, vector::VectorIndex& memory, std::string_view key,
              Item entry);
  void BuildGraphs();
  void Wake();  // tells the builder that a graph may wait

  const vector::SearchTuning tuning_;
  std::mutex mutex_;
  std::unordered_map<uint64_t, std::shared_ptr<vector::VectorIndex>> indexes_;
  std::unordered_map<uint64_t, IndexDef> definitions_;
  std::condition_variable wake_builder_;
  bool stopping_ = false;
  uint64_t wakeups_ = 0;
  std::thread builder_;
};

}  // namespace ddbd::server
