// VectorIndexes: the in-memory side of vector indexes.
#include "server/vector_indexes.h"

#include "index/vector_entries.h"

#include <chrono>
#include <cstdio>

namespace ddbd::server {

VectorIndexes::VectorIndexes(vector::SearchTuning tuning)
    : tuning_(tuning), builder_([this] { BuildGraphs(); }) {}

VectorIndexes::~VectorIndexes() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_builder_.notify_all();
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

std::shared_ptr<vector::VectorIndex> VectorIndexes::Find(const IndexDef& index) {
  std::lock_guard lock(mutex_);
  auto [it, created] = indexes_.try_emplace(index.id);
  if (created) {
    it->second = std::make_shared<vector::VectorIndex>(
        index.vector->dimensions, index.vector->distance, index.vector->filters.size(), tuning_);
    definitions_.emplace(index.id, index);
  }
  return it->second;
}

void VectorIndexes::Drop(uint64_t index_id) {
  std::lock_guard lock(mutex_);
  indexes_.erase(index_id);
  definitions_.erase(index_id);
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
    std::shared_ptr<vector::VectorIndex> memory = Find(*change.index);
    if (change.entry) {
      Insert(*change.index, *memory, change.key, std::move(*change.entry));
      needs_build |= memory->NeedsBuild();
    } else {
      memory->Remove(change.key);
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

Status VectorIndexes::Load(storage::Database& db, const storage::Catalog& catalog) {
  for (const auto& table : catalog.AllTables()) {
    for (const auto& index : table->indexes) {
      if (!index.IsVector()) continue;
      std::shared_ptr<vector::VectorIndex> memory = Find(index);
      DDBD_RETURN_IF_ERROR(db.ForEachIndexEntry(index.id, [&](std::string_view key, Item entry) {
        Insert(index, *memory, key, std::move(entry));
      }));
    }
  }
  Wake();
  return OkStatus();
}

void VectorIndexes::BuildGraphs() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    const uint64_t seen = wakeups_;
    std::vector<std::pair<uint64_t, std::shared_ptr<vector::VectorIndex>>> pending(
        indexes_.begin(), indexes_.end());
    lock.unlock();
    bool worked = false;
    for (const auto& [id, memory] : pending) {
      const auto started = std::chrono::steady_clock::now();
      size_t steps = 0;
      while (memory->BuildStep()) {
        ++steps;
        std::lock_guard check(mutex_);
        if (stopping_) return;
      }
      if (steps == 0) continue;
      worked = true;
      // Reported so that operators (and bench/vector.py) see when search turns approximate.
      const double ms = std::chrono::duration<double, std::milli>(
                            std::chrono::steady_clock::now() - started).count();
      std::fprintf(stderr, "ddbd: vector index %llu: HNSW graphs built (%zu entries) in %.0f ms\n",
                   static_cast<unsigned long long>(id), memory->size(), ms);
    }
    lock.lock();
    if (!worked) wake_builder_.wait(lock, [&] { return stopping_ || wakeups_ != seen; });
  }
}

}  // namespace ddbd::server
