// HnswGraph: one hnswlib graph over a partition's entries. Each element is labelled with its
// entry's slot number and holds the only in-memory copy of the entry's vector (for cosine,
// followed by its inverse norm), so searches read vectors where hnswlib keeps them, beside
// their links. hnswlib is included by hnsw_graph.cc alone: its headers define functions that
// are not inline, so one translation unit of a program may include them.
//
// Searches start at the closest of ~2·√n entry points spread over the graph, or at the end
// of hnswlib's descent through the upper levels when that is closer: on clustered data the
// descent alone can end in the wrong cluster, and the search never leaves it (measured at
// 100k × 128 with 100 clusters: one query in a hundred found none of its ten neighbours).
//
// Thread-safety: const methods may run concurrently; the others need exclusive access.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/table_def.h"

namespace ddbd::vector {

// What a graph is built with; the values come from SearchTuning (VectorIndex::Shape).
struct GraphShape {
  uint32_t dimensions = 0;
  DistanceFunction distance = DistanceFunction::kEuclidean;
  size_t degree = 0;  // hnswlib's M
  size_t ef_construction = 0;
  size_t ef_search = 0;
};

class HnswGraph {
 public:
  // An empty graph with room for `capacity` elements (it grows as needed).
  HnswGraph(const GraphShape& shape, size_t capacity);
  // Reads a graph SaveTo wrote, with room for `capacity` elements; null when the file does
  // not read back or holds elements of another layout.
  static std::unique_ptr<HnswGraph> Load(const GraphShape& shape, const std::string& path,
                                         size_t capacity);
  ~HnswGraph();
  HnswGraph(const HnswGraph&) = delete;
  HnswGraph& operator=(const HnswGraph&) = delete;

  // Adds `vector` as a new element labelled `slot`; returns the element's number.
  // REQUIRES: no element is labelled `slot` yet.
  uint32_t Add(std::span<const float> vector, uint32_t slot);
  // Marks the element labelled `slot` deleted (it keeps routing searches); false when no
  // element has that label.
  bool Retire(uint32_t slot);
  // Chooses the entry points among the elements present; call once the graph is complete.
  void ChooseEntryPoints();
  // The slots of the `count` elements nearest `query` by the graph's float distance, deleted
  // elements left out; `ef` candidates are walked (at least `count`).
  std::vector<uint32_t> Nearest(std::span<const float> query, size_t count) const;
  // The vector element `element` holds.
  const float* VectorOf(uint32_t element) const;

  size_t size() const;     // elements, deleted ones included
  size_t deleted() const;  // elements marked deleted
  // The element's label, or nullopt when it has none (deleted, from a file without a slot).
  std::optional<uint32_t> SlotOf(uint32_t element) const;
  // Gives the elements new labels: `slots[e]` for element e, or none (the element is marked
  // deleted and routes searches only). For a graph read back by another process.
  void Relabel(const std::vector<std::optional<uint32_t>>& slots);
  void SaveTo(const std::string& path) const;

 private:
  struct Parts;
  explicit HnswGraph(std::unique_ptr<Parts> parts);
  std::unique_ptr<Parts> parts_;
};

}  // namespace ddbd::vector
