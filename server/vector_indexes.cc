// VectorIndexes: the in-memory side of vector indexes.
#include "server/vector_indexes.h"

#include "index/vector_entries.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include "model/log.h"

namespace ddbd::server {

VectorIndexes::VectorIndexes(vector::SearchTuning tuning)
    : tuning_(tuning), builder_([this] { BuildGraphs(); }) {}

VectorIndexes::~VectorIndexes() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    for (const auto& [id, held] : indexes_) held.memory->Stop();  // a graph build in progress
  }
  stopping_load_ = true;
  wake_builder_.notify_all();
  if (loader_.joinable()) loader_.join();
  builder_.join();
}

std::string VectorIndexes::ComparableBytes(const AttributeValue& value) {
  std::string bytes(1, static_cast<char>(value.type()));
  if (value.type() == AttributeType::kS || value.type() == AttributeType::kN ||
      value.type() == AttributeType::kB) {
    bytes += value.scalar();
  }
  return bytes;
}

VectorIndexes::Held VectorIndexes::Find(const IndexDef& index) {
  std::lock_guard lock(mutex_);
  Held& held = indexes_[index.id];
  if (!held.memory) {
    held.memory = std::make_shared<vector::VectorIndex>(
        index.vector->dimensions, index.vector->distance, index.vector->filters.size(), tuning_);
  }
  return held;
}

std::shared_ptr<vector::VectorIndex> VectorIndexes::ForSearch(const IndexDef& index) {
  Held held = Find(index);
  if (held.loading) {
    std::unique_lock lock(held.loading->mutex);
    held.loading->done_cv.wait(lock, [&] { return held.loading->done; });
  }
  return held.memory;
}

void VectorIndexes::Drop(uint64_t index_id) {
  std::lock_guard lock(mutex_);
  auto it = indexes_.find(index_id);
  if (it == indexes_.end()) return;
  it->second.memory->Stop();  // no graph is needed any more
  indexes_.erase(it);
}

void VectorIndexes::Insert(const IndexDef& index, vector::VectorIndex& memory,
                           std::string_view key, Item entry) {
  std::string scope;
  for (const auto& hash : index.partition_keys) {
    if (auto it = entry.find(hash.name); it != entry.end()) scope = ComparableBytes(it->second);
  }
  std::vector<std::optional<std::string>> filters;
  for (const auto& filter : index.vector->filters) {
    auto it = entry.find(filter.name);
    if (it != entry.end() && it->second.type() == ToAttributeType(filter.type)) {
      filters.emplace_back(ComparableBytes(it->second));
    } else {
      filters.emplace_back();
    }
  }
  index::DecodedVectorEntry decoded = index::DecodeVectorEntry(index, std::move(entry));
  if (decoded.vector.size() != index.vector->dimensions) return;  // not a vector entry
  memory.Upsert(key, std::move(scope), std::move(filters), decoded.vector);
}

void VectorIndexes::Apply(std::vector<storage::VectorEntryChange> changes) {
  bool needs_build = false;
  for (auto& change : changes) {
    Held held = Find(*change.index);
    // While the start-up load runs, the change wins over the stored copy the load may read
    // later: the key is marked under the load's lock, together with the change itself.
    std::unique_lock<std::mutex> loading;
    if (held.loading) {
      loading = std::unique_lock(held.loading->mutex);
      if (!held.loading->done) held.loading->changed.insert(change.key);
    }
    if (change.entry) {
      Insert(*change.index, *held.memory, change.key, std::move(*change.entry));
      needs_build |= held.memory->NeedsBuild();
    } else {
      held.memory->Remove(change.key);
      needs_build |= held.memory->NeedsBuild();  // a graph may be rebuilt after removals
    }
  }
  if (needs_build) Wake();
}

void VectorIndexes::Wake() {
  {
    std::lock_guard lock(mutex_);
    ++wakeups_;
  }
  wake_builder_.notify_all();
}

namespace {

constexpr std::string_view kGraphManifest = "sequence";

std::string GraphPrefix(const std::string& dir, uint64_t index_id) {
  return dir + "/" + std::to_string(index_id) + "-";
}

// Whether `dir` holds graphs saved at exactly this database state.
bool GraphsCurrent(const std::string& dir, uint64_t sequence) {
  std::ifstream manifest(dir + "/" + std::string(kGraphManifest));
  uint64_t saved = 0;
  return manifest >> saved && saved == sequence;
}

}  // namespace

Status VectorIndexes::SaveGraphs(const storage::Database& db, const std::string& graph_dir) {
  // Let a start-up load finish first (it also removes the graphs it used).
  if (loader_.joinable()) loader_.join();
  std::error_code error;
  std::filesystem::remove_all(graph_dir, error);
  std::vector<std::pair<uint64_t, std::shared_ptr<vector::VectorIndex>>> held;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [id, entry] : indexes_) held.emplace_back(id, entry.memory);
  }
  size_t saved = 0;
  for (const auto& [id, memory] : held) {
    if (memory->graphs_completed() == 0) continue;
    if (saved == 0 && !std::filesystem::create_directories(graph_dir, error) && error) {
      return Error::Internal("cannot create " + graph_dir + ": " + error.message());
    }
    saved += memory->SaveGraphs(GraphPrefix(graph_dir, id));
  }
  if (saved == 0) return OkStatus();
  // Written last: graphs without it are never used.
  std::ofstream manifest(graph_dir + "/" + std::string(kGraphManifest), std::ios::trunc);
  manifest << db.LatestSequence() << "\n";
  if (!manifest) return Error::Internal("cannot write " + graph_dir);
  return OkStatus();
}

void VectorIndexes::Load(storage::Database& db, const storage::Catalog& catalog,
                         const std::optional<std::string>& graph_dir) {
  std::vector<IndexDef> indexes;
  for (const auto& table : catalog.AllTables()) {
    for (const auto& index : table->indexes) {
      if (!index.IsVector()) continue;
      indexes.push_back(index);
      Find(index);
      std::lock_guard lock(mutex_);
      indexes_[index.id].loading = std::make_shared<Loading>();
    }
  }
  // Saved graphs describe the database as it was when they were saved: usable only if
  // nothing has been written since.
  std::optional<std::string> graphs;
  if (graph_dir && GraphsCurrent(*graph_dir, db.LatestSequence())) graphs = graph_dir;
  if (indexes.empty()) return;
  loader_ = std::thread([this, &db, indexes = std::move(indexes), graphs]() mutable {
    LoadAll(db, std::move(indexes), std::move(graphs));
  });
}

void VectorIndexes::LoadAll(storage::Database& db, std::vector<IndexDef> indexes,
                            std::optional<std::string> graph_dir) {
  const auto started = std::chrono::steady_clock::now();
  size_t loaded = 0, graphs = 0;
  for (const auto& index : indexes) {
    Held held = Find(index);
    Loading& loading = *held.loading;
    Status status = db.ForEachIndexEntry(index.id, [&](std::string_view key, Item entry) {
      if (stopping_load_) return;  // shutting down: finish the walk without work
      std::lock_guard lock(loading.mutex);
      if (loading.changed.count(std::string(key))) return;  // a write has the newer entry
      Insert(index, *held.memory, key, std::move(entry));
      ++loaded;
    });
    if (!status.ok()) {
      log::Error("cannot load vector index %s: %s", index.name.c_str(),
                   status.error().message().c_str());
    }
    {
      std::lock_guard lock(loading.mutex);
      // A graph saved for these entries fits only if no write reached the index meanwhile.
      if (graph_dir && loading.changed.empty() && !stopping_load_) {
        graphs += held.memory->LoadGraphs(GraphPrefix(*graph_dir, index.id));
      }
      loading.done = true;
      loading.changed.clear();
    }
    loading.done_cv.notify_all();
    std::lock_guard lock(mutex_);
    if (auto it = indexes_.find(index.id); it != indexes_.end()) it->second.loading = nullptr;
  }
  const double ms = std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - started).count();
  log::Info("vector indexes loaded (%zu entries, %zu saved graphs) in %.0f ms",
               loaded, graphs, ms);
  if (graph_dir) {  // used once: later writes would make the files stale
    std::error_code error;
    std::filesystem::remove_all(*graph_dir, error);
  }
  Wake();
}

void VectorIndexes::BuildGraphs() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    const uint64_t seen = wakeups_;
    std::vector<std::pair<uint64_t, std::shared_ptr<vector::VectorIndex>>> pending;
    for (const auto& [id, held] : indexes_) {
      // An index still loading gets its graphs afterwards (perhaps the saved ones).
      if (!held.loading) pending.emplace_back(id, held.memory);
    }
    lock.unlock();
    bool worked = false;
    for (const auto& [id, memory] : pending) {
      const auto started = std::chrono::steady_clock::now();
      const size_t completed = memory->graphs_completed();
      while (memory->BuildStep()) {
        worked = true;
        std::lock_guard check(mutex_);
        if (stopping_) return;
      }
      if (memory->graphs_completed() == completed) continue;
      // Reported so that operators (and bench/vector.py) see when search turns approximate.
      const double ms = std::chrono::duration<double, std::milli>(
                            std::chrono::steady_clock::now() - started).count();
      log::Info("vector index %llu: HNSW graphs built (%zu entries) in %.0f ms",
                   static_cast<unsigned long long>(id), memory->size(), ms);
    }
    lock.lock();
    if (!worked) wake_builder_.wait(lock, [&] { return stopping_ || wakeups_ != seen; });
  }
}

}  // namespace ddbd::server
