// VectorIndex: exact and HNSW search over one vector index's entries.
#include "vector/vector_index.h"

#include <hnswlib/hnswlib.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "vector/graph_space.h"

namespace ddbd::vector {

struct VectorIndex::Slot {
  std::string key;
  uint32_t partition = 0;
  uint32_t member_position = 0;  // in the partition's `members`
  std::vector<std::optional<std::string>> filters;
  bool live = false;
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
  // The graph's distances (declared first: the graph uses it until it is destroyed).
  std::unique_ptr<GraphSpace> space;
  std::unique_ptr<Graph> graph;
  // Graph elements (internal ids) spread over the graph that a search may start from: the
  // closest of them to the query, or hnswlib's descent through the upper levels when that
  // ends closer. On clustered data the descent alone can end in the wrong cluster and the
  // search never leaves it (measured: 100k × 128, 100 clusters: a query in a hundred found
  // none of its ten neighbours).
  std::vector<uint32_t> entry_points;
  std::unordered_set<uint32_t> pending;
  std::unordered_set<uint32_t> stale;
  // Updates and removals since the graph was built; past a limit it is rebuilt. So is a
  // graph whose partition has doubled since its snapshot: elements inserted one by one into
  // a graph much smaller than the partition make a measurably worse graph than a build from
  // the whole (recall@10 0.987 against 0.997 at 100k × 128).
  size_t churn = 0;
  size_t built_size = 0;
  // A replacement graph is being built outside the lock from a snapshot; the slots written
  // since the snapshot are reconciled when it is swapped in.
  bool rebuilding = false;
  std::unordered_set<uint32_t> changed;
};

namespace {

// Pending entries inserted per BuildStep: long enough to amortise the lock, short enough
// that writes and searches waiting on it are not held up for long (~10-30 ms at 128
// dimensions).
constexpr size_t kBuildBatch = 256;
// Vector elements an exact search may scan before a graph pays off (measured: 4,096 entries
// of 128 dimensions cost ~400 µs exactly, ~120 µs through a graph).
constexpr size_t kExactSearchElements = size_t{1} << 19;
constexpr size_t kMinExactThreshold = 256;
// Churn a graph absorbs before it is rebuilt: a twentieth of its partition, at least this
// (deleted elements cost hnswlib 0.6.2 recall quickly in high dimensions).
constexpr size_t kMinChurnBeforeRebuild = 256;

}  // namespace

VectorIndex::VectorIndex(uint32_t dimensions, DistanceFunction distance, size_t filter_count,
                         SearchTuning tuning)
    : dimensions_(dimensions),
      distance_(distance),
      filter_count_(filter_count),
      tuning_(tuning),
      exact_threshold_(tuning.exact_threshold != 0
                           ? tuning.exact_threshold
                           : std::max(kMinExactThreshold, kExactSearchElements / dimensions)) {}

VectorIndex::~VectorIndex() = default;

size_t VectorIndex::size() const {
  std::shared_lock lock(mutex_);
  return live_;
}

const float* VectorIndex::InverseNorms() const {
  return distance_ == DistanceFunction::kCosine ? inverse_norms_.data() : nullptr;
}

void VectorIndex::GrowVectors() {
  const float* before = data_.data();
  data_.resize(data_.size() + dimensions_);
  if (distance_ == DistanceFunction::kCosine) inverse_norms_.resize(slots_.size());
  if (data_.data() == before) return;
  for (const auto& partition : partitions_) {  // the graphs read the moved array
    if (partition->space) partition->space->SetVectors(data_.data(), InverseNorms());
  }
}

void VectorIndex::GraphAdd(Partition& partition, uint32_t slot) {
  Graph& graph = *partition.graph;
  if (graph.cur_element_count >= graph.max_elements_) {
    graph.resizeIndex(std::max<size_t>(graph.max_elements_ * 2, 1024));
  }
  graph.addPoint(&slot, slot);  // an existing (even deleted) label is updated in place
}

namespace {

// Marks the element labelled `slot` deleted; false when the graph has no such element.
bool RetireElement(hnswlib::HierarchicalNSW<float>& graph, uint32_t slot) {
  auto element = graph.label_lookup_.find(slot);
  if (element == graph.label_lookup_.end()) return false;
  if (!graph.isMarkedDeleted(element->second)) graph.markDeletedInternal(element->second);
  return true;
}

// Every n-th element of `graph`, about 2·√size of them (64 to 1,024): enough that every
// sizeable cluster of the data holds some, few enough that scoring them all costs a small part
// of a search (~25 µs for 632 at 128 dimensions).
std::vector<uint32_t> ChooseEntryPoints(const hnswlib::HierarchicalNSW<float>& graph) {
  const size_t size = graph.cur_element_count;
  const size_t wanted =
      std::clamp<size_t>(static_cast<size_t>(2 * std::sqrt(static_cast<double>(size))), 64, 1024);
  const size_t step = std::max<size_t>(1, size / wanted);
  std::vector<uint32_t> points;
  for (size_t id = 0; id < size; id += step) points.push_back(static_cast<uint32_t>(id));
  return points;
}

// The labels of the `count` elements of `graph` nearest `point` (by the graph's distance),
// searching the bottom level from the closest of `entry_points` and the end of hnswlib's
// greedy descent through the upper levels.
std::vector<size_t> NearestLabels(const hnswlib::HierarchicalNSW<float>& graph,
                                  const std::vector<uint32_t>& entry_points, const void* point,
                                  size_t count) {
  if (graph.cur_element_count == 0) return {};
  auto distance = [&](hnswlib::tableint id) {
    return graph.fstdistfunc_(point, graph.getDataByInternalId(id), graph.dist_func_param_);
  };
  hnswlib::tableint entry = graph.enterpoint_node_;
  float entry_distance = distance(entry);
  for (int level = graph.maxlevel_; level > 0; --level) {
    for (bool moved = true; moved;) {
      moved = false;
      const hnswlib::linklistsizeint* links = graph.get_linklist(entry, level);
      const auto* neighbours = reinterpret_cast<const hnswlib::tableint*>(links + 1);
      for (size_t i = 0, n = *links & 0xFFFF; i < n; ++i) {  // hnswlib's getListCount
        const float d = distance(neighbours[i]);
        if (d < entry_distance) {
          entry_distance = d;
          entry = neighbours[i];
          moved = true;
        }
      }
    }
  }
  for (uint32_t id : entry_points) {
    if (id >= graph.cur_element_count) continue;
    const float d = distance(id);
    if (d < entry_distance) {
      entry_distance = d;
      entry = id;
    }
  }
  const size_t ef = std::max(graph.ef_, count);
  auto top = graph.num_deleted_ > 0 ? graph.searchBaseLayerST<true>(entry, point, ef)
                                    : graph.searchBaseLayerST<false>(entry, point, ef);
  while (top.size() > count) top.pop();
  std::vector<size_t> labels;
  labels.reserve(top.size());
  for (; !top.empty(); top.pop()) labels.push_back(graph.getExternalLabel(top.top().second));
  return labels;
}

}  // namespace

void VectorIndex::GraphUpsert(Partition& partition, uint32_t slot, bool update) {
  if (partition.rebuilding) partition.changed.insert(slot);
  if (!partition.graph) return;
  if (update) ++partition.churn;
  if (partition.stale.count(slot)) return;  // already scored exactly until the rebuild
  // An element under this label (this entry's old vector, or a removed entry's) is retired
  // and the entry scored exactly; without one, the entry is new to the graph and inserting
  // it costs the graph nothing.
  if (!RetireElement(*partition.graph, slot)) {
    partition.pending.insert(slot);
    return;
  }
  partition.pending.erase(slot);
  partition.stale.insert(slot);
}

void VectorIndex::Upsert(std::string_view key, std::string scope,
                         std::vector<std::optional<std::string>> filters,
                         std::span<const float> vector) {
  std::unique_lock lock(mutex_);
  auto [partition_it, new_partition] =
      partition_ids_.try_emplace(std::move(scope), static_cast<uint32_t>(partitions_.size()));
  if (new_partition) {
    partitions_.push_back(std::make_unique<Partition>());
    partitions_.back()->postings.resize(filter_count_);
  }
  const uint32_t partition_id = partition_it->second;
  auto existing = by_key_.find(std::string(key));
  if (existing != by_key_.end() && slots_[existing->second].partition != partition_id) {
    RemoveSlot(existing->second);
    by_key_.erase(existing);
    existing = by_key_.end();
  }
  Partition& partition = *partitions_[partition_id];
  uint32_t slot;
  if (existing != by_key_.end()) {
    slot = existing->second;
    Slot& old = slots_[slot];
    for (size_t i = 0; i < filter_count_; ++i) {
      if (old.filters[i]) partition.postings[i][*old.filters[i]].erase(slot);
    }
  } else {
    if (!free_slots_.empty()) {
      slot = free_slots_.back();
      free_slots_.pop_back();
    } else {
      slot = static_cast<uint32_t>(slots_.size());
      slots_.emplace_back();
      GrowVectors();
    }
    Slot& fresh = slots_[slot];
    fresh.key = std::string(key);
    fresh.partition = partition_id;
    fresh.member_position = static_cast<uint32_t>(partition.members.size());
    fresh.live = true;
    partition.members.push_back(slot);
    by_key_.emplace(fresh.key, slot);
    ++live_;
  }
  Slot& target = slots_[slot];
  target.filters = std::move(filters);
  target.filters.resize(filter_count_);
  for (size_t i = 0; i < filter_count_; ++i) {
    if (target.filters[i]) partition.postings[i][*target.filters[i]].insert(slot);
  }
  std::copy(vector.begin(), vector.end(), data_.begin() + size_t{slot} * dimensions_);
  if (distance_ == DistanceFunction::kCosine) {
    inverse_norms_[slot] = InverseNorm(VectorAt(slot), dimensions_);
  }
  GraphUpsert(partition, slot, /*update=*/existing != by_key_.end());
}

void VectorIndex::Remove(std::string_view key) {
  std::unique_lock lock(mutex_);
  auto it = by_key_.find(std::string(key));
  if (it == by_key_.end()) return;
  RemoveSlot(it->second);
  by_key_.erase(it);
}

void VectorIndex::RemoveSlot(uint32_t slot) {
  Slot& removed = slots_[slot];
  Partition& partition = *partitions_[removed.partition];
  for (size_t i = 0; i < filter_count_; ++i) {
    if (!removed.filters[i]) continue;
    auto posting = partition.postings[i].find(*removed.filters[i]);
    posting->second.erase(slot);
    if (posting->second.empty()) partition.postings[i].erase(posting);
  }
  const uint32_t last = partition.members.back();
  partition.members[removed.member_position] = last;
  slots_[last].member_position = removed.member_position;
  partition.members.pop_back();
  if (partition.graph) {
    partition.pending.erase(slot);
    partition.stale.erase(slot);
    ++partition.churn;
    RetireElement(*partition.graph, slot);
    if (partition.members.size() <= exact_threshold_ / 2 && !partition.rebuilding) {
      // Small again: exact search serves it; the graph's memory goes.
      partition.graph.reset();
      partition.pending.clear();
      partition.stale.clear();
      partition.churn = 0;
    }
  }
  if (partition.rebuilding) partition.changed.insert(slot);
  removed = Slot{};
  free_slots_.push_back(slot);
  --live_;
}

size_t VectorIndex::ChurnLimit(const Partition& partition) const {
  return std::max(kMinChurnBeforeRebuild, partition.members.size() / 20);
}

bool VectorIndex::NeedsGraph(const Partition& partition) const {
  if (partition.rebuilding || tuning_.exact_only) return false;
  if (!partition.graph) return partition.members.size() > exact_threshold_;
  return partition.churn > ChurnLimit(partition) ||
         partition.members.size() > 2 * partition.built_size;
}

size_t VectorIndex::graphs_completed() const {
  std::shared_lock lock(mutex_);
  return graphs_completed_;
}

bool VectorIndex::NeedsBuild() const {
  std::shared_lock lock(mutex_);
  for (const auto& partition : partitions_) {
    if ((partition->graph && !partition->pending.empty()) || partition->rebuilding ||
        NeedsGraph(*partition)) {
      return true;
    }
  }
  return false;
}

void VectorIndex::Stop() { stopping_ = true; }

bool VectorIndex::BuildStep() {
  std::vector<uint32_t> snapshot_slots;
  std::vector<float> snapshot, snapshot_norms;  // their vectors (inverse norms), by position
  uint32_t target = 0;
  {
    std::unique_lock lock(mutex_);
    // Pending entries of complete graphs first: they are cheap and keep searches fast.
    for (auto& partition : partitions_) {
      if (!partition->graph || partition->pending.empty()) continue;
      size_t added = 0;
      for (auto it = partition->pending.begin();
           it != partition->pending.end() && added < kBuildBatch; ++added) {
        GraphAdd(*partition, *it);
        it = partition->pending.erase(it);
      }
      return true;
    }
    // Then a partition that needs a (new) graph: snapshot it; the build runs unlocked.
    auto needing = std::find_if(partitions_.begin(), partitions_.end(),
                                [this](const auto& p) { return NeedsGraph(*p); });
    if (needing == partitions_.end()) return false;
    target = static_cast<uint32_t>(needing - partitions_.begin());
    Partition& partition = **needing;
    partition.rebuilding = true;
    partition.changed.clear();
    snapshot_slots = partition.members;
    partition.built_size = snapshot_slots.size();
    snapshot.reserve(snapshot_slots.size() * dimensions_);
    for (uint32_t slot : snapshot_slots) {
      snapshot.insert(snapshot.end(), VectorAt(slot), VectorAt(slot) + dimensions_);
      if (InverseNorms()) snapshot_norms.push_back(inverse_norms_[slot]);
    }
  }
  // Built over the snapshot: until the swap, an element holds its snapshot position.
  auto space = std::make_unique<GraphSpace>(dimensions_, distance_);
  space->SetVectors(snapshot.data(), snapshot_norms.data());
  auto fresh =
      std::make_unique<Graph>(space.get(), std::max<size_t>(snapshot_slots.size() * 2, 1024),
                              tuning_.graph_degree, tuning_.ef_construction);
  fresh->setEf(tuning_.ef_search);
  for (uint32_t i = 0; i < snapshot_slots.size() && !stopping_; ++i) {
    fresh->addPoint(&i, snapshot_slots[i]);
  }
  std::unique_lock lock(mutex_);
  Partition& partition = *partitions_[target];
  partition.rebuilding = false;
  if (stopping_ || partition.members.size() <= exact_threshold_ / 2) {
    partition.changed.clear();
    return !stopping_;
  }
  // Reconcile the writes made since the snapshot: an entry the new graph holds with an older
  // vector, or that was removed, has its element retired (stale if still a member); one
  // added since is pending.
  std::unordered_set<uint32_t> pending, stale;
  for (uint32_t slot : partition.changed) {
    const bool member = slots_[slot].live && slots_[slot].partition == target;
    if (RetireElement(*fresh, slot)) {
      if (member) stale.insert(slot);
    } else if (member) {
      pending.insert(slot);
    }
  }
  // From now on elements hold their slots, and read the index's array.
  for (hnswlib::tableint id = 0; id < fresh->cur_element_count; ++id) {
    const auto slot = static_cast<uint32_t>(fresh->getExternalLabel(id));
    std::memcpy(fresh->getDataByInternalId(id), &slot, sizeof slot);
  }
  space->SetVectors(data_.data(), InverseNorms());
  partition.entry_points = ChooseEntryPoints(*fresh);
  partition.graph = std::move(fresh);
  partition.space = std::move(space);
  partition.pending = std::move(pending);
  partition.stale = std::move(stale);
  partition.churn = partition.stale.size();
  partition.changed.clear();
  ++graphs_completed_;
  return true;
}

bool VectorIndex::MatchesFilters(uint32_t slot,
                                 const std::vector<FilterCondition>& conditions) const {
  for (const auto& condition : conditions) {
    const auto& value = slots_[slot].filters[condition.filter];
    if (!value || *value != condition.value) return false;
  }
  return true;
}

std::vector<VectorIndex::Hit> VectorIndex::Best(std::vector<Scored>& scored, size_t k) const {
  auto order = [this](const Scored& a, const Scored& b) {
    if (a.score != b.score) return Better(distance_, a.score, b.score);
    return slots_[a.slot].key < slots_[b.slot].key;
  };
  if (scored.size() > k) {
    std::partial_sort(scored.begin(), scored.begin() + static_cast<ptrdiff_t>(k), scored.end(),
                      order);
    scored.resize(k);
  } else {
    std::sort(scored.begin(), scored.end(), order);
  }
  std::vector<Hit> hits;
  hits.reserve(scored.size());
  for (const auto& s : scored) hits.push_back({slots_[s.slot].key, s.score});
  return hits;
}

std::vector<VectorIndex::Hit> VectorIndex::ExactSearch(
    std::span<const float> query, const Partition& partition,
    const std::vector<FilterCondition>& conditions, size_t k) const {
  // Walk the smallest posting list of the conditions (or the whole partition).
  const std::unordered_set<uint32_t>* smallest = nullptr;
  for (const auto& condition : conditions) {
    auto it = partition.postings[condition.filter].find(condition.value);
    if (it == partition.postings[condition.filter].end()) return {};
    if (!smallest || it->second.size() < smallest->size()) smallest = &it->second;
  }
  std::vector<Scored> scored;
  auto consider = [&](uint32_t slot) {
    if (!conditions.empty() && !MatchesFilters(slot, conditions)) return;
    scored.push_back({Score(distance_, query, {VectorAt(slot), dimensions_}), slot});
  };
  if (smallest) {
    scored.reserve(smallest->size());
    for (uint32_t slot : *smallest) consider(slot);
  } else {
    scored.reserve(partition.members.size());
    for (uint32_t slot : partition.members) consider(slot);
  }
  return Best(scored, k);
}

std::vector<VectorIndex::Hit> VectorIndex::GraphSearch(
    std::span<const float> query, const Partition& partition,
    const std::vector<FilterCondition>& conditions, size_t k, size_t candidates) const {
  GraphQuery point{.vector = query.data()};
  if (InverseNorms()) point.inverse_norm = InverseNorm(query.data(), dimensions_);
  const size_t members = partition.members.size();
  // The graph walks ef_search candidates; the best 2k by its float distance are scored
  // exactly. A filter over-fetches in proportion to its selectivity.
  size_t fetch = 2 * k;
  // Deleted elements (removed or updated entries) crowd the candidate list: widen it in
  // proportion until the rebuild removes them.
  const Graph& graph = *partition.graph;
  if (graph.num_deleted_ > 0 && graph.cur_element_count > 0) {
    const double deleted =
        static_cast<double>(graph.num_deleted_) / static_cast<double>(graph.cur_element_count);
    fetch = std::max(
        fetch, static_cast<size_t>(static_cast<double>(tuning_.ef_search) * (1 + 8 * deleted)));
  }
  if (!conditions.empty()) {
    fetch = std::max(fetch, k * members / std::max<size_t>(candidates, 1) * 2);
  }
  while (true) {
    fetch = std::min(fetch, members);
    const std::vector<size_t> found = NearestLabels(graph, partition.entry_points, &point, fetch);
    std::vector<Scored> scored;
    std::unordered_set<uint32_t> seen;
    auto consider = [&](uint32_t slot) {
      if (!slots_[slot].live || partitions_[slots_[slot].partition].get() != &partition ||
          !MatchesFilters(slot, conditions) || !seen.insert(slot).second) {
        return;
      }
      scored.push_back({Score(distance_, query, {VectorAt(slot), dimensions_}), slot});
    };
    for (size_t label : found) consider(static_cast<uint32_t>(label));
    for (uint32_t slot : partition.pending) consider(slot);  // not in the graph yet
    for (uint32_t slot : partition.stale) consider(slot);    // in it with an old vector
    if (scored.size() >= std::min(k, candidates) || fetch >= members) return Best(scored, k);
    if (fetch * 4 > members / 2) return ExactSearch(query, partition, conditions, k);
    fetch *= 4;
  }
}

std::vector<VectorIndex::Hit> VectorIndex::Search(std::span<const float> query,
                                                  std::string_view scope,
                                                  const std::vector<FilterCondition>& conditions,
                                                  size_t k) const {
  std::shared_lock lock(mutex_);
  auto it = partition_ids_.find(std::string(scope));
  if (it == partition_ids_.end() || k == 0) return {};
  const Partition& partition = *partitions_[it->second];
  // An upper bound of the entries the conditions can match: the smallest posting list.
  size_t candidates = partition.members.size();
  for (const auto& condition : conditions) {
    auto posting = partition.postings[condition.filter].find(condition.value);
    candidates = std::min(candidates, posting == partition.postings[condition.filter].end()
                                          ? size_t{0}
                                          : posting->second.size());
  }
  if (candidates == 0) return {};
  if (!partition.graph || candidates <= exact_threshold_) {
    return ExactSearch(query, partition, conditions, k);
  }
  return GraphSearch(query, partition, conditions, k, candidates);
}

namespace {

void WriteBytes(std::ofstream& out, std::string_view bytes) {
  const uint32_t size = static_cast<uint32_t>(bytes.size());
  out.write(reinterpret_cast<const char*>(&size), sizeof size);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

bool ReadBytes(std::ifstream& in, std::string& bytes) {
  uint32_t size = 0;
  if (!in.read(reinterpret_cast<char*>(&size), sizeof size) || size > (1u << 20)) return false;
  bytes.resize(size);
  return static_cast<bool>(in.read(bytes.data(), size));
}

}  // namespace

size_t VectorIndex::SaveGraphs(const std::string& prefix) {
  std::unique_lock lock(mutex_);
  size_t saved = 0;
  for (const auto& [scope, id] : partition_ids_) {
    Partition& partition = *partitions_[id];
    // Any serving graph is valid: stale entries are saved as the deleted elements they are
    // (they come back as new ones), and a graph due for a rebuild is rebuilt after the next
    // start, serving until then.
    if (!partition.graph) continue;
    for (uint32_t slot : partition.pending) GraphAdd(partition, slot);
    partition.pending.clear();
    const Graph& graph = *partition.graph;
    const std::string base = prefix + std::to_string(saved);
    std::ofstream keys(base + ".keys", std::ios::binary | std::ios::trunc);
    WriteBytes(keys, scope);
    const uint64_t count = graph.cur_element_count;
    keys.write(reinterpret_cast<const char*>(&count), sizeof count);
    for (hnswlib::tableint i = 0; i < count; ++i) {
      const size_t slot = graph.getExternalLabel(i);
      const bool present = !graph.isMarkedDeleted(i) && slot < slots_.size() && slots_[slot].live &&
                           slots_[slot].partition == id;
      WriteBytes(keys, present ? std::string_view(slots_[slot].key) : std::string_view());
    }
    // The rebuild pressure carries over.
    const uint64_t churn = partition.churn, built_size = partition.built_size;
    keys.write(reinterpret_cast<const char*>(&churn), sizeof churn);
    keys.write(reinterpret_cast<const char*>(&built_size), sizeof built_size);
    if (!keys) continue;
    keys.close();
    partition.graph->saveIndex(base + ".hnsw");
    ++saved;
  }
  return saved;
}

std::optional<std::unordered_set<uint32_t>> VectorIndex::Relabel(
    Graph& graph, uint32_t partition_id, const std::vector<std::string>& element_keys) const {
  const hnswlib::tableint count = graph.cur_element_count;
  // hnswlib 0.6.2's loading constructor never zeroes num_deleted_ before adding the saved
  // deletions to it, so count them again. (Found by UBSan: the garbage count made
  // GraphSearch's fetch size overflow. Pinned by: asan.VectorIndexTest.
  // SavedGraphsAttachToTheSameEntriesLoadedInAnotherOrder.)
  graph.num_deleted_ = 0;
  for (hnswlib::tableint i = 0; i < count; ++i) graph.num_deleted_ += graph.isMarkedDeleted(i);
  // Labels and element data were the saving process's slots: each element gets this
  // process's slot of the same entry. Elements without one stay deleted, under labels no slot
  // can have, and route searches from the position of a neighbour that has one.
  graph.label_lookup_.clear();
  std::unordered_set<uint32_t> in_graph;
  std::vector<bool> found(count);
  std::optional<uint32_t> any_slot;
  for (hnswlib::tableint i = 0; i < count; ++i) {
    auto slot = by_key_.find(element_keys[i]);
    found[i] = !element_keys[i].empty() && slot != by_key_.end() &&
               slots_[slot->second].partition == partition_id &&
               in_graph.insert(slot->second).second;
    if (found[i]) {
      if (graph.isMarkedDeleted(i)) graph.unmarkDeletedInternal(i);
      graph.setExternalLabel(i, slot->second);
      std::memcpy(graph.getDataByInternalId(i), &slot->second, sizeof(uint32_t));
      any_slot = slot->second;
    } else {
      if (!graph.isMarkedDeleted(i)) graph.markDeletedInternal(i);
      graph.setExternalLabel(i, SIZE_MAX - i);
    }
    graph.label_lookup_[graph.getExternalLabel(i)] = i;
  }
  if (!any_slot) return std::nullopt;
  for (hnswlib::tableint i = 0; i < count; ++i) {
    if (found[i]) continue;
    uint32_t position = *any_slot;
    const hnswlib::linklistsizeint* links = graph.get_linklist0(i);
    const auto* neighbours = reinterpret_cast<const hnswlib::tableint*>(links + 1);
    for (size_t n = 0, size = *links & 0xFFFF; n < size; ++n) {  // hnswlib's getListCount
      if (neighbours[n] < count && found[neighbours[n]]) {
        position = static_cast<uint32_t>(graph.getExternalLabel(neighbours[n]));
        break;
      }
    }
    std::memcpy(graph.getDataByInternalId(i), &position, sizeof position);
  }
  return in_graph;
}

size_t VectorIndex::LoadGraphs(const std::string& prefix) {
  if (tuning_.exact_only) return 0;  // exact search was asked for: no graphs at all
  std::unique_lock lock(mutex_);
  size_t attached = 0;
  for (size_t n = 0;; ++n) {
    const std::string base = prefix + std::to_string(n);
    std::ifstream keys(base + ".keys", std::ios::binary);
    if (!keys) break;
    std::string scope;
    uint64_t count = 0;
    if (!ReadBytes(keys, scope) || !keys.read(reinterpret_cast<char*>(&count), sizeof count)) {
      continue;
    }
    auto partition_it = partition_ids_.find(scope);
    if (partition_it == partition_ids_.end()) continue;
    std::vector<std::string> element_keys(count);
    bool read = true;
    for (auto& key : element_keys) read = read && ReadBytes(keys, key);
    uint64_t churn = 0, built_size = 0;
    read = read && keys.read(reinterpret_cast<char*>(&churn), sizeof churn) &&
           keys.read(reinterpret_cast<char*>(&built_size), sizeof built_size);
    if (!read) continue;
    Partition& partition = *partitions_[partition_it->second];
    auto space = std::make_unique<GraphSpace>(dimensions_, distance_);
    space->SetVectors(data_.data(), InverseNorms());
    std::unique_ptr<Graph> graph;
    try {
      graph = std::make_unique<Graph>(space.get(), base + ".hnsw", false,
                                      std::max<size_t>(count, partition.members.size()) * 2);
    } catch (const std::exception&) {
      continue;  // unreadable: the partition builds its graph anew
    }
    // Elements of 4-byte slot numbers only: a graph whose elements hold vectors (written
    // before they did) is rebuilt instead.
    const size_t element_bytes =
        graph->size_links_level0_ + sizeof(uint32_t) + sizeof(hnswlib::labeltype);
    if (graph->cur_element_count != count || graph->size_data_per_element_ != element_bytes) {
      continue;
    }
    const std::optional<std::unordered_set<uint32_t>> in_graph =
        Relabel(*graph, partition_it->second, element_keys);
    if (!in_graph) continue;
    graph->setEf(tuning_.ef_search);
    partition.pending.clear();
    partition.stale.clear();
    for (uint32_t slot : partition.members) {
      if (!in_graph->count(slot)) partition.pending.insert(slot);
    }
    if (!partition.graph) ++graphs_completed_;
    partition.entry_points = ChooseEntryPoints(*graph);
    partition.graph = std::move(graph);
    partition.space = std::move(space);
    partition.churn = churn;
    partition.built_size = built_size;
    ++attached;
  }
  return attached;
}

}  // namespace ddbd::vector
