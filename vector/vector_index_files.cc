// VectorIndex's saved graphs: written at a clean shutdown, attached at the next start.
#include <algorithm>
#include <fstream>
#include <mutex>

#include "vector/vector_index_parts.h"

namespace ddbd::vector {

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
    const HnswGraph& graph = *partition.graph;
    const std::string base = prefix + std::to_string(saved);
    std::ofstream keys(base + ".keys", std::ios::binary | std::ios::trunc);
    WriteBytes(keys, scope);
    const uint64_t count = graph.size();
    keys.write(reinterpret_cast<const char*>(&count), sizeof count);
    for (uint32_t element = 0; element < count; ++element) {
      const std::optional<uint32_t> slot = graph.SlotOf(element);
      const bool present = slot && *slot < slots_.size() && slots_[*slot].live &&
                           slots_[*slot].partition == id && slots_[*slot].element == element;
      WriteBytes(keys, present ? std::string_view(slots_[*slot].key) : std::string_view());
    }
    // The rebuild pressure carries over.
    const uint64_t churn = partition.churn;
    keys.write(reinterpret_cast<const char*>(&churn), sizeof churn);
    if (!keys) continue;
    keys.close();
    graph.SaveTo(base + ".hnsw");
    ++saved;
  }
  return saved;
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
    uint64_t churn = 0;
    read = read && keys.read(reinterpret_cast<char*>(&churn), sizeof churn);
    if (!read) continue;
    Partition& partition = *partitions_[partition_it->second];
    std::unique_ptr<HnswGraph> graph = HnswGraph::Load(
        Shape(), base + ".hnsw", std::max<size_t>(count, partition.members.size()) * 2);
    if (!graph || graph->size() != count) continue;
    const std::vector<std::pair<uint32_t, uint32_t>> held =
        Match(*graph, partition_it->second, element_keys);
    if (held.empty()) continue;
    std::unordered_set<uint32_t> in_graph;
    for (const auto& [slot, element] : held) in_graph.insert(slot);
    partition.pending.clear();
    partition.stale.clear();
    for (uint32_t slot : partition.members) {
      if (!in_graph.count(slot)) partition.pending.insert(slot);
    }
    if (!partition.graph) ++graphs_completed_;
    AdoptGraph(partition, std::move(graph), held);
    partition.churn = churn;
    ++attached;
  }
  return attached;
}

std::vector<std::pair<uint32_t, uint32_t>> VectorIndex::Match(
    HnswGraph& graph, uint32_t partition_id, const std::vector<std::string>& element_keys) {
  // Labels were the saving process's slots: each element whose entry this process has, with
  // the same vector, gets that entry's slot. The others are marked deleted, routing searches
  // only; their entries are inserted anew.
  std::vector<std::optional<uint32_t>> labels(element_keys.size());
  std::vector<std::pair<uint32_t, uint32_t>> held;
  std::unordered_set<uint32_t> taken;
  for (uint32_t element = 0; element < element_keys.size(); ++element) {
    const std::string& key = element_keys[element];
    auto slot = key.empty() ? by_key_.end() : by_key_.find(key);
    if (slot == by_key_.end() || slots_[slot->second].partition != partition_id ||
        !std::equal(VectorAt(slot->second), VectorAt(slot->second) + dimensions_,
                    graph.VectorOf(element)) ||
        !taken.insert(slot->second).second) {
      continue;
    }
    labels[element] = slot->second;
    held.emplace_back(slot->second, element);
  }
  graph.Relabel(labels);
  return held;
}

}  // namespace ddbd::vector
