// VectorIndex: one vector index in memory — its entries' 32-bit vectors, scopes (the HASH
// value) and INLINE_FILTER values — answering top-K searches exactly or through HNSW graphs
// (hnswlib). Entry points: Upsert, Remove, Search, BuildStep.
//
// Entries are grouped by scope (one partition per HASH value; one for an index without a
// HASH element). A small partition, or a filter that matches few entries, is searched
// exactly. A partition of more than the exact threshold gets an HNSW graph (HnswGraph), built
// by background work (BuildStep, a task on the executor) from a snapshot while exact search
// serves it. Once built, new entries wait pending until BuildStep inserts them; an updated
// entry's element is marked deleted and the entry is scored exactly until the next rebuild
// (hnswlib's in-place update erodes recall); removals use markDelete. After churn of a
// twentieth of its partition a graph is rebuilt the same way while the old one keeps
// serving; a partition that shrinks to half the threshold goes back to exact search without
// a graph. hnswlib 0.6.2 has no filter functor, so filtered HNSW searches over-fetch and
// post-filter, falling back to exact search when the filter turns out too selective. Every
// result is scored exactly, in double precision, from the stored floats; ties are broken by
// entry key. Each vector is held once: by its graph element once a graph holds it, else by
// its entry.
//
// Thread-safety: all methods may be called concurrently (a reader-writer lock).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "model/table_def.h"

namespace ddbd::vector {

class HnswGraph;
struct GraphShape;

struct SearchTuning {
  bool exact_only = false;  // never build graphs: fully deterministic results
  // Partitions (or filtered candidates) of up to this many entries are searched exactly;
  // 0: as many as cost about as much as a graph search — 2^19 vector elements scanned
  // (4,096 entries at 128 dimensions, 512 at 1,024; see docs/PERFORMANCE.md), at least 256.
  size_t exact_threshold = 0;
  size_t ef_search = 96;  // HNSW candidate list size; recall measured in bench/
  size_t ef_construction = 128;
  // hnswlib's M. 32 rather than hnswlib's 16: on clustered data M 16 strands queries
  // (measured at 100k × 128, 64 Gaussian clusters: recall@10 mean 0.988 with M 16, 0.997
  // with M 32, at the same build time; see docs/PERFORMANCE.md "Vector search").
  size_t graph_degree = 32;
};

// A DistanceFunction's score of a stored vector for a query (spec §8.2), computed in double
// from the floats and delivered with float precision: cosine distance, Euclidean distance,
// or dot product.
double Score(DistanceFunction function, std::span<const float> query, std::span<const float> v);
// Whether `a` ranks before `b` (smaller distances, larger dot products).
bool Better(DistanceFunction function, double a, double b);

class VectorIndex {
 public:
  VectorIndex(uint32_t dimensions, DistanceFunction distance, size_t filter_count,
              SearchTuning tuning);
  ~VectorIndex();
  VectorIndex(const VectorIndex&) = delete;
  VectorIndex& operator=(const VectorIndex&) = delete;

  // Adds or replaces the entry stored under `key`. `filters[i]` is the value of the i-th
  // INLINE_FILTER attribute (as comparable bytes), or nullopt when the item lacks it.
  // REQUIRES: vector.size() == dimensions.
  void Upsert(std::string_view key, std::string scope,
              std::vector<std::optional<std::string>> filters, std::span<const float> vector);
  void Remove(std::string_view key);

  struct Hit {
    std::string key;
    double score = 0;
  };
  // A required filter: the i-th INLINE_FILTER attribute equals `value`.
  struct FilterCondition {
    size_t filter = 0;
    std::string value;
  };
  // The best `k` entries of `scope` that satisfy every condition, best first.
  std::vector<Hit> Search(std::span<const float> query, std::string_view scope,
                          const std::vector<FilterCondition>& conditions, size_t k) const;

  size_t size() const;
  // Whether a partition waits for its graph (or one is being built), or a graph for pending
  // entries.
  bool NeedsBuild() const;
  // One unit of background work: inserts a batch of pending entries, or builds a partition's
  // (new) graph from a snapshot without holding the lock, then swaps it in. False when there
  // is nothing to do.
  bool BuildStep();
  // Makes a BuildStep in progress give up (shutdown, or the index was dropped).
  void Stop();
  // How many partition graphs have been completed so far.
  size_t graphs_completed() const;

  // Writes each partition's serving graph to `<prefix><n>.hnsw`, with the scope, the entry
  // key of every graph element and the rebuild bookkeeping in `<prefix><n>.keys`, inserting
  // pending entries first. Returns the graphs written.
  size_t SaveGraphs(const std::string& prefix);
  // Attaches the graphs SaveGraphs wrote for the same entries (keys are matched to this
  // index's entries; entries a graph lacks become pending). A file that does not read back
  // is skipped: its partition builds its graph anew. Returns the graphs attached.
  size_t LoadGraphs(const std::string& prefix);

 private:
  struct Slot;
  struct Partition;
  static constexpr uint32_t kNoElement = UINT32_MAX;
  static constexpr uint32_t kNoRow = UINT32_MAX;

  GraphShape Shape() const;
  // The slot's vector, wherever its one copy is (its own, or its graph element's).
  const float* VectorAt(uint32_t slot) const;
  // Writes the slot's vector into its row of rows_ (its own copy, which no graph holds).
  void WriteLoose(uint32_t slot, std::span<const float> vector);
  void FreeRow(Slot& entry);
  // Moves the rows in use to the front of a right-sized rows_ when half of it is free.
  void CompactRows();
  void RemoveSlot(uint32_t slot);
  // Records a written slot for the partition's graph (and a rebuild in flight).
  void GraphUpsert(Partition& partition, uint32_t slot, bool update);
  // Whether the partition should get a graph, or a new one (too much churn).
  bool NeedsGraph(const Partition& partition) const;
  // Updates and removals a partition's graph absorbs before it is rebuilt.
  size_t ChurnLimit(const Partition& partition) const;
  // Inserts a pending slot into its partition's graph, which then holds its vector.
  void GraphAdd(Partition& partition, uint32_t slot);
  // Makes `graph` (or none) the partition's serving graph, holding the vectors of `held`
  // (slot, element) pairs; vectors only the outgoing graph held are copied out first.
  void AdoptGraph(Partition& partition, std::unique_ptr<HnswGraph> graph,
                  const std::vector<std::pair<uint32_t, uint32_t>>& held);
  // Serves a graph BuildStep built from a snapshot of `snapshot_slots` (`elements` theirs),
  // reconciled with the writes made since.
  void SwapIn(uint32_t partition_id, std::unique_ptr<HnswGraph> fresh,
              const std::vector<uint32_t>& snapshot_slots, const std::vector<uint32_t>& elements);
  // Gives a graph read from a file this process's slots of `element_keys` (the entries the
  // saving process had in its elements) where the vector is the same; returns the (slot,
  // element) pairs it holds.
  std::vector<std::pair<uint32_t, uint32_t>> Match(HnswGraph& graph, uint32_t partition_id,
                                                   const std::vector<std::string>& element_keys);
  std::vector<Hit> ExactSearch(std::span<const float> query, const Partition& partition,
                               const std::vector<FilterCondition>& conditions, size_t k) const;
  std::vector<Hit> GraphSearch(std::span<const float> query, const Partition& partition,
                               const std::vector<FilterCondition>& conditions, size_t k,
                               size_t candidates) const;
  bool MatchesFilters(uint32_t slot, const std::vector<FilterCondition>& conditions) const;
  // Asks the processor to bring a vector's cache lines in.
  void Prefetch(const float* vector) const;
  struct Scored {
    double score;
    uint32_t slot;
  };
  // The best `k` of `scored`: by score, ties by entry key; keys are copied for those only.
  std::vector<Hit> Best(std::vector<Scored>& scored, size_t k) const;

  const uint32_t dimensions_;
  const DistanceFunction distance_;
  const size_t filter_count_;
  const SearchTuning tuning_;
  const size_t exact_threshold_;

  mutable std::shared_mutex mutex_;
  std::vector<Slot> slots_;
  // row × dimensions: the vectors no graph holds (an entry's own copy), reused through
  // free_rows_; contiguous, so that an exact scan reads them in order.
  std::vector<float> rows_;
  std::vector<uint32_t> free_rows_;
  std::vector<uint32_t> free_slots_;
  std::unordered_map<std::string, uint32_t> by_key_;
  std::unordered_map<std::string, uint32_t> partition_ids_;  // scope → partition
  std::vector<std::unique_ptr<Partition>> partitions_;
  size_t live_ = 0;
  size_t graphs_completed_ = 0;
  std::atomic<bool> stopping_{false};
};

}  // namespace ddbd::vector
