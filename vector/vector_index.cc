// VectorIndex: exact and HNSW search over one vector index's entries.
#include "vector/vector_index.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <mutex>

#include "vector/hnsw_graph.h"
#include "vector/vector_index_parts.h"

namespace ddbd::vector {

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
// Vectors an exact scan fetches ahead of the one it scores.
constexpr size_t kPrefetchAhead = 4;
// rows_ gives its memory back once it has this many rows and half of them are free (after a
// graph took their vectors over).
constexpr size_t kMinRowsToCompact = 1024;

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

GraphShape VectorIndex::Shape() const {
  return {.dimensions = dimensions_,
          .distance = distance_,
          .degree = tuning_.graph_degree,
          .ef_construction = tuning_.ef_construction,
          .ef_search = tuning_.ef_search};
}

const float* VectorIndex::VectorAt(uint32_t slot) const {
  const Slot& entry = slots_[slot];
  if (entry.row != kNoRow) return rows_.data() + size_t{entry.row} * dimensions_;
  return partitions_[entry.partition]->graph->VectorOf(entry.element);
}

void VectorIndex::WriteLoose(uint32_t slot, std::span<const float> vector) {
  Slot& entry = slots_[slot];
  if (entry.row == kNoRow) {
    if (!free_rows_.empty()) {
      entry.row = free_rows_.back();
      free_rows_.pop_back();
    } else {
      entry.row = static_cast<uint32_t>(rows_.size() / dimensions_);
      rows_.resize(rows_.size() + dimensions_);
    }
  }
  std::copy(vector.begin(), vector.end(), rows_.begin() + size_t{entry.row} * dimensions_);
  entry.element = kNoElement;
}

void VectorIndex::FreeRow(Slot& entry) {
  if (entry.row == kNoRow) return;
  free_rows_.push_back(entry.row);
  entry.row = kNoRow;
}

void VectorIndex::CompactRows() {
  const size_t rows = rows_.size() / dimensions_;
  if (rows < kMinRowsToCompact || free_rows_.size() * 2 < rows) return;
  std::vector<float> kept;
  kept.reserve((rows - free_rows_.size()) * dimensions_);
  for (Slot& entry : slots_) {
    if (entry.row == kNoRow) continue;
    const float* vector = rows_.data() + size_t{entry.row} * dimensions_;
    entry.row = static_cast<uint32_t>(kept.size() / dimensions_);
    kept.insert(kept.end(), vector, vector + dimensions_);
  }
  rows_ = std::move(kept);
  free_rows_.clear();
}

void VectorIndex::GraphAdd(Partition& partition, uint32_t slot) {
  Slot& entry = slots_[slot];
  entry.element = partition.graph->Add({VectorAt(slot), dimensions_}, slot);
  FreeRow(entry);
}

void VectorIndex::AdoptGraph(Partition& partition, std::unique_ptr<HnswGraph> graph,
                             const std::vector<std::pair<uint32_t, uint32_t>>& held) {
  std::vector<bool> is_held(slots_.size());
  for (const auto& [slot, element] : held) is_held[slot] = true;
  // Vectors only the outgoing graph holds are copied out before it goes.
  for (uint32_t slot : partition.members) {
    if (!is_held[slot] && slots_[slot].row == kNoRow) {
      WriteLoose(slot, {VectorAt(slot), dimensions_});
    }
  }
  for (const auto& [slot, element] : held) {
    slots_[slot].element = element;
    FreeRow(slots_[slot]);
  }
  if (graph) graph->ChooseEntryPoints();
  partition.graph = std::move(graph);
  CompactRows();
}

void VectorIndex::GraphUpsert(Partition& partition, uint32_t slot, bool update) {
  if (partition.rebuilding) partition.changed.insert(slot);
  if (!partition.graph) return;
  if (update) ++partition.churn;
  if (partition.stale.count(slot)) return;  // already scored exactly until the rebuild
  // An element under this label (this entry's old vector, or a removed entry's) is retired
  // and the entry scored exactly; without one, the entry is new to the graph and inserting
  // it costs the graph nothing.
  if (!partition.graph->Retire(slot)) {
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
  WriteLoose(slot, vector);
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
    partition.graph->Retire(slot);
    if (partition.members.size() <= exact_threshold_ / 2 && !partition.rebuilding) {
      // Small again: exact search serves it; the graph's memory goes.
      AdoptGraph(partition, nullptr, {});
      partition.pending.clear();
      partition.stale.clear();
      partition.churn = 0;
    }
  }
  if (partition.rebuilding) partition.changed.insert(slot);
  FreeRow(removed);
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
  return partition.churn > ChurnLimit(partition);
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
  std::vector<float> snapshot;  // their vectors, by position
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
      CompactRows();
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
    snapshot.reserve(snapshot_slots.size() * dimensions_);
    for (uint32_t slot : snapshot_slots) {
      snapshot.insert(snapshot.end(), VectorAt(slot), VectorAt(slot) + dimensions_);
    }
  }
  auto fresh = std::make_unique<HnswGraph>(Shape(), snapshot_slots.size() * 2);
  std::vector<uint32_t> elements;  // of the snapshot's slots, by position
  elements.reserve(snapshot_slots.size());
  for (size_t i = 0; i < snapshot_slots.size() && !stopping_; ++i) {
    elements.push_back(
        fresh->Add({snapshot.data() + i * dimensions_, dimensions_}, snapshot_slots[i]));
  }
  snapshot = {};
  std::unique_lock lock(mutex_);
  Partition& partition = *partitions_[target];
  partition.rebuilding = false;
  if (stopping_ || partition.members.size() <= exact_threshold_ / 2) {
    partition.changed.clear();
    return !stopping_;
  }
  SwapIn(target, std::move(fresh), snapshot_slots, elements);
  return true;
}

void VectorIndex::SwapIn(uint32_t id, std::unique_ptr<HnswGraph> fresh,
                         const std::vector<uint32_t>& snapshot_slots,
                         const std::vector<uint32_t>& elements) {
  // Reconcile the writes made since the snapshot: an entry the new graph holds with an older
  // vector, or that was removed, has its element retired (stale if still a member); one
  // added since is pending. The others are held by the new graph as they are.
  Partition& partition = *partitions_[id];
  std::unordered_set<uint32_t> pending, stale;
  for (uint32_t slot : partition.changed) {
    const bool member = slots_[slot].live && slots_[slot].partition == id;
    if (fresh->Retire(slot)) {
      if (member) stale.insert(slot);
    } else if (member) {
      pending.insert(slot);
    }
  }
  std::vector<std::pair<uint32_t, uint32_t>> held;
  held.reserve(snapshot_slots.size());
  for (size_t i = 0; i < snapshot_slots.size(); ++i) {
    if (!partition.changed.count(snapshot_slots[i]))
      held.emplace_back(snapshot_slots[i], elements[i]);
  }
  AdoptGraph(partition, std::move(fresh), held);
  partition.pending = std::move(pending);
  partition.stale = std::move(stale);
  partition.churn = partition.stale.size();
  partition.changed.clear();
  ++graphs_completed_;
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
    const std::vector<uint32_t>& members = partition.members;
    scored.reserve(members.size());
    for (size_t i = 0; i < members.size(); ++i) {
      // Each vector lies wherever its one copy is (its entry's, or a graph element's), so the
      // processor cannot guess the next: fetch a few ahead while scoring this one.
      if (i + kPrefetchAhead < members.size()) Prefetch(VectorAt(members[i + kPrefetchAhead]));
      consider(members[i]);
    }
  }
  return Best(scored, k);
}

void VectorIndex::Prefetch(const float* vector) const {
  const auto* bytes = reinterpret_cast<const char*>(vector);
  for (size_t offset = 0; offset < dimensions_ * sizeof(float); offset += 64) {
    __builtin_prefetch(bytes + offset);
  }
}

std::vector<VectorIndex::Hit> VectorIndex::GraphSearch(
    std::span<const float> query, const Partition& partition,
    const std::vector<FilterCondition>& conditions, size_t k, size_t candidates) const {
  const size_t members = partition.members.size();
  // The graph walks ef_search candidates; the best 2k by its float distance are scored
  // exactly. A filter over-fetches in proportion to its selectivity.
  size_t fetch = 2 * k;
  // Deleted elements (removed or updated entries) crowd the candidate list: widen it in
  // proportion until the rebuild removes them.
  const HnswGraph& graph = *partition.graph;
  if (graph.deleted() > 0 && graph.size() > 0) {
    const double deleted = static_cast<double>(graph.deleted()) / static_cast<double>(graph.size());
    fetch = std::max(
        fetch, static_cast<size_t>(static_cast<double>(tuning_.ef_search) * (1 + 8 * deleted)));
  }
  if (!conditions.empty()) {
    fetch = std::max(fetch, k * members / std::max<size_t>(candidates, 1) * 2);
  }
  while (true) {
    fetch = std::min(fetch, members);
    const std::vector<uint32_t> found = graph.Nearest(query, fetch);
    std::vector<Scored> scored;
    std::unordered_set<uint32_t> seen;
    auto consider = [&](uint32_t slot) {
      if (slot >= slots_.size() || !slots_[slot].live ||
          partitions_[slots_[slot].partition].get() != &partition ||
          !MatchesFilters(slot, conditions) || !seen.insert(slot).second) {
        return;
      }
      scored.push_back({Score(distance_, query, {VectorAt(slot), dimensions_}), slot});
    };
    for (uint32_t slot : found) consider(slot);
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

}  // namespace ddbd::vector
