// The parts of a VectorIndex, for its two translation units (vector_index.cc: writes,
// searches and graph building; vector_index_files.cc: saved graphs). Not for other users.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "vector/hnsw_graph.h"
#include "vector/vector_index.h"

namespace ddbd::vector {

struct VectorIndex::Slot {
  std::string key;
  uint32_t partition = 0;
  uint32_t member_position = 0;  // in the partition's `members`
  std::vector<std::optional<std::string>> filters;
  bool live = false;
  // The entry's vector: row `row` of rows_ while no graph holds it (no graph, pending or
  // stale), else element `element` of its partition's graph. Never both: one copy each.
  uint32_t row = kNoRow;
  uint32_t element = kNoElement;
};

struct VectorIndex::Partition {
  std::vector<uint32_t> members;  // live slots
  // Per INLINE_FILTER attribute: value → the member slots holding it.
  std::vector<std::unordered_map<std::string, std::unordered_set<uint32_t>>> postings;
  // The graph searches use, complete (null: exact search only). No write waits for it:
  // a new entry is `pending` until BuildStep inserts it; an entry whose vector changed is
  // `stale` — its graph element is marked deleted (it keeps routing searches) and it is not
  // re-inserted, because hnswlib's in-place update erodes recall (measured: updating half of
  // 20k vectors in place took recall@10 from 1.0 to 0.72). Searches score pending and stale
  // entries exactly.
  std::unique_ptr<HnswGraph> graph;
  std::unordered_set<uint32_t> pending;
  std::unordered_set<uint32_t> stale;
  // Updates and removals since the graph was built; past a limit it is rebuilt. Growth
  // alone never rebuilds a graph: new entries are inserted into it, which makes as good a
  // graph as a build from the whole (measured at 100k × 128 with writes and graph work
  // interleaved: recall@10 0.997 either way, with rebuilds at each doubling costing twice
  // the graph work).
  size_t churn = 0;
  // A replacement graph is being built outside the lock from a snapshot; the slots written
  // since the snapshot are reconciled when it is swapped in.
  bool rebuilding = false;
  std::unordered_set<uint32_t> changed;
};

}  // namespace ddbd::vector
