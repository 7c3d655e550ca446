// VectorIndexes: the in-memory side of vector indexes.
#include "vector/vector_indexes.h"

#include <chrono>
#include <filesystem>
#include <fstream>

#include "model/key_encoding.h"
#include "model/log.h"
#include "vector/entry_codec.h"

namespace ddbd::vector {
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

double MillisecondsSince(std::chrono::steady_clock::time_point started) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
      .count();
}

}  // namespace

VectorIndexes::VectorIndexes(SearchTuning tuning, Executor& executor)
    : tuning_(tuning), executor_(executor) {}

VectorIndexes::~VectorIndexes() {
  stopping_ = true;
  std::lock_guard lock(mutex_);
  for (const auto& [id, held] : indexes_) held.memory->Stop();  // a graph build in progress
}

std::string VectorIndexes::ComparableBytes(const AttributeValue& value) {
  std::string bytes(1, static_cast<char>(value.type()));
  if (value.type() == AttributeType::kS || value.type() == AttributeType::kN ||
      value.type() == AttributeType::kB) {
    bytes += value.scalar();
  }
  return bytes;
}

Result<PrimaryKey> VectorIndexes::KeyOfHit(const VectorIndex::Hit& hit, const TableDef& table) {
  return DecodeKey(hit.key, table);
}

VectorIndexes::Held VectorIndexes::Find(const IndexDef& index) {
  std::lock_guard lock(mutex_);
  Held& held = indexes_[index.id];
  if (!held.memory) {
    held.memory = std::make_shared<VectorIndex>(index.vector->dimensions, index.vector->distance,
                                                index.vector->filters.size(), tuning_);
  }
  return held;
}

std::shared_ptr<VectorIndex> VectorIndexes::ForSearch(const IndexDef& index) {
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

void VectorIndexes::Insert(const IndexDef& index, VectorIndex& memory, std::string_view key,
                           Item entry) {
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
  DecodedVectorEntry decoded = DecodeVectorEntry(index, std::move(entry));
  if (decoded.vector.size() != index.vector->dimensions) return;  // not a vector entry
  memory.Upsert(key, std::move(scope), std::move(filters), decoded.vector);
}

void VectorIndexes::Apply(EntryChange change) {
  Held held = Find(*change.index);
  const std::string key = EncodeKey(change.key);
  // While the start-up load runs, the change wins over the stored copy the load may read
  // later: the key is marked under the load's lock, together with the change itself.
  std::unique_lock<std::mutex> loading;
  if (held.loading) {
    loading = std::unique_lock(held.loading->mutex);
    if (!held.loading->done) held.loading->changed.insert(key);
  }
  if (change.entry) {
    Insert(*change.index, *held.memory, key, std::move(*change.entry));
  } else {
    held.memory->Remove(key);
  }
  // A graph may wait for new entries, or be rebuilt after removals.
  if (held.memory->NeedsBuild()) Wake();
}

void VectorIndexes::Wake() {
  std::lock_guard lock(mutex_);
  if (stopping_) return;
  if (build_scheduled_) {  // the slice in flight will look again
    build_requested_ = true;
    return;
  }
  build_scheduled_ = true;
  executor_.Run([this] { BuildSlice(); });
}

void VectorIndexes::BuildSlice() {
  std::vector<std::pair<uint64_t, std::shared_ptr<VectorIndex>>> pending;
  {
    std::lock_guard lock(mutex_);
    build_requested_ = false;
    for (const auto& [id, held] : indexes_) {
      // An index still loading gets its graphs afterwards (perhaps the saved ones).
      if (!held.loading && held.memory->NeedsBuild()) pending.emplace_back(id, held.memory);
    }
  }
  // One unit of work per index, then the thread goes back to other background work.
  for (const auto& [id, memory] : pending) {
    if (stopping_ || executor_.stopping()) break;
    auto [run, fresh] = builds_.try_emplace(
        id, BuildRun{std::chrono::steady_clock::now(), memory->graphs_completed()});
    memory->BuildStep();
    if (memory->NeedsBuild()) continue;
    // Reported so that operators (and bench/vector.py) see when search turns approximate.
    if (memory->graphs_completed() != run->second.graphs_before) {
      log::Info("vector index %llu: HNSW graphs built (%zu entries) in %.0f ms",
                static_cast<unsigned long long>(id), memory->size(),
                MillisecondsSince(run->second.started));
    }
    builds_.erase(run);
  }
  std::lock_guard lock(mutex_);
  if (!stopping_ && (build_requested_ || !pending.empty())) {
    executor_.Run([this] { BuildSlice(); });  // still scheduled: one slice at a time
  } else {
    build_scheduled_ = false;
  }
}

Status VectorIndexes::SaveGraphs(uint64_t sequence, const std::string& graph_dir) {
  {  // Let a start-up load finish first (it also removes the graphs it used).
    std::unique_lock lock(mutex_);
    load_done_.wait(lock, [&] { return !load_running_; });
  }
  std::error_code error;
  std::filesystem::remove_all(graph_dir, error);
  std::vector<std::pair<uint64_t, std::shared_ptr<VectorIndex>>> held;
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
  manifest << sequence << "\n";
  if (!manifest) return Error::Internal("cannot write " + graph_dir);
  return OkStatus();
}

void VectorIndexes::Load(EntrySource& source, std::vector<std::shared_ptr<const TableDef>> tables,
                         const std::optional<std::string>& graph_dir) {
  bool any = false;
  for (const auto& table : tables) {
    for (const auto& index : table->indexes) {
      if (!index.IsVector()) continue;
      Find(index);
      std::lock_guard lock(mutex_);
      indexes_[index.id].loading = std::make_shared<Loading>();
      any = true;
    }
  }
  if (!any) return;
  // Saved graphs describe the database as it was when they were saved: usable only if
  // nothing has been written since.
  std::optional<std::string> graphs;
  if (graph_dir && GraphsCurrent(*graph_dir, source.LatestSequence())) graphs = graph_dir;
  {
    std::lock_guard lock(mutex_);
    load_running_ = true;
  }
  executor_.Run([this, &source, tables = std::move(tables), graphs]() mutable {
    LoadAll(source, std::move(tables), std::move(graphs));
  });
}

void VectorIndexes::LoadAll(EntrySource& source,
                            std::vector<std::shared_ptr<const TableDef>> tables,
                            std::optional<std::string> graph_dir) {
  const auto started = std::chrono::steady_clock::now();
  size_t loaded = 0, graphs = 0;
  for (const auto& table : tables) {
    for (const auto& index : table->indexes) {
      if (!index.IsVector()) continue;
      Held held = Find(index);
      Loading& loading = *held.loading;
      Status status = source.ForEachEntry(index.id, [&](Item entry) {
        if (stopping_ || executor_.stopping()) return;  // shutting down: finish without work
        const std::string key = EncodeKey(KeyOf(*table, entry));
        std::lock_guard lock(loading.mutex);
        if (loading.changed.count(key)) return;  // a write has the newer entry
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
        if (graph_dir && loading.changed.empty() && !stopping_) {
          graphs += held.memory->LoadGraphs(GraphPrefix(*graph_dir, index.id));
        }
        loading.done = true;
        loading.changed.clear();
      }
      loading.done_cv.notify_all();
      std::lock_guard lock(mutex_);
      if (auto it = indexes_.find(index.id); it != indexes_.end()) it->second.loading = nullptr;
    }
  }
  log::Info("vector indexes loaded (%zu entries, %zu saved graphs) in %.0f ms", loaded, graphs,
            MillisecondsSince(started));
  if (graph_dir) {  // used once: later writes would make the files stale
    std::error_code error;
    std::filesystem::remove_all(*graph_dir, error);
  }
  {
    std::lock_guard lock(mutex_);
    load_running_ = false;
  }
  load_done_.notify_all();
  Wake();
}

}  // namespace ddbd::vector
