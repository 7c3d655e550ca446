// Database: live statistics. ItemCount and TableSizeBytes of every table and index are kept
// exact: each write batch carries one merge operand per table it touches (the deltas of the
// table and its indexes), so statistics are exactly as durable as the items, and the same
// deltas are added in memory once the batch commits (Impl::ApplyStats). Also the storage
// engine's own figures, for metrics (EngineFigures).
#include <rocksdb/db.h>
#include <rocksdb/merge_operator.h>
#include <rocksdb/transaction_log.h>

#include <cstring>

#include "storage/internal/binary_io.h"
#include "storage/internal/database_impl.h"

namespace ddbd::storage {
namespace {

void AddStats(const rocksdb::Slice& slice, StatsEntries& into) {
  for (size_t offset = 0; offset + 24 <= slice.size(); offset += 24) {
    uint64_t id;
    TableStats stats;
    std::memcpy(&id, slice.data() + offset, 8);
    std::memcpy(&stats.item_count, slice.data() + offset + 8, 8);
    std::memcpy(&stats.size_bytes, slice.data() + offset + 16, 8);
    TableStats& total = into[id];
    total.item_count += stats.item_count;
    total.size_bytes += stats.size_bytes;
  }
}

class StatsMergeOperator : public rocksdb::AssociativeMergeOperator {
 public:
  bool Merge(const rocksdb::Slice&, const rocksdb::Slice* existing, const rocksdb::Slice& value,
             std::string* new_value, rocksdb::Logger*) const override {
    StatsEntries entries;
    if (existing) AddStats(*existing, entries);
    AddStats(value, entries);
    *new_value = EncodeStats(entries);
    return true;
  }
  // Stored on disk (the catalog family's merge operator): never rename.
  const char* Name() const override { return "ddbd.StatsAdd"; }
};

}  // namespace

std::string StatsKey(uint64_t table_id) {
  std::string key(1, kStatsPrefix);
  ByteWriter(key).FixedBigEndian64(table_id);
  return key;
}

std::string EncodeStats(const StatsEntries& entries) {
  std::string out(24 * entries.size(), '\0');
  char* p = out.data();
  for (const auto& [id, stats] : entries) {
    std::memcpy(p, &id, 8);
    std::memcpy(p + 8, &stats.item_count, 8);
    std::memcpy(p + 16, &stats.size_bytes, 8);
    p += 24;
  }
  return out;
}

std::string EncodeStats(uint64_t id, TableStats stats) { return EncodeStats({{id, stats}}); }

StatsEntries DecodeStats(const rocksdb::Slice& slice) {
  StatsEntries entries;
  AddStats(slice, entries);
  return entries;
}

std::shared_ptr<rocksdb::MergeOperator> NewStatsMergeOperator() {
  return std::make_shared<StatsMergeOperator>();
}

TableStats Database::Stats(uint64_t id) const {
  std::shared_lock lock(impl_->stats_mutex);
  auto it = impl_->stats.find(id);
  if (it == impl_->stats.end()) return {};
  return {it->second->item_count.load(), it->second->size_bytes.load()};
}

std::vector<Database::EngineFigure> Database::EngineFigures() const {
  rocksdb::DB& db = *impl_->db;
  auto summed = [&](const std::string& property) {
    uint64_t value = 0;
    return db.GetAggregatedIntProperty(property, &value) ? value : 0;
  };
  uint64_t cache_bytes = 0;  // one cache, shared by every column family
  db.GetIntProperty(impl_->catalog, rocksdb::DB::Properties::kBlockCacheUsage, &cache_bytes);
  uint64_t wal_bytes = 0;
  rocksdb::VectorLogPtr logs;
  if (db.GetSortedWalFiles(logs).ok()) {
    for (const auto& log : logs) wal_bytes += log->SizeFileBytes();
  }
  return {
      {"memtable_bytes", "Bytes in RocksDB's memtables (active and immutable).",
       summed(rocksdb::DB::Properties::kCurSizeAllMemTables)},
      {"block_cache_bytes", "Bytes held by the block cache.", cache_bytes},
      {"pending_compaction_bytes", "Bytes RocksDB estimates compaction has yet to rewrite.",
       summed(rocksdb::DB::Properties::kEstimatePendingCompactionBytes)},
      {"running_compactions", "Compactions running now.",
       summed(rocksdb::DB::Properties::kNumRunningCompactions)},
      {"table_file_bytes", "Bytes of RocksDB's table files.",
       summed(rocksdb::DB::Properties::kTotalSstFilesSize)},
      {"wal_bytes", "Bytes of the write-ahead log's files.", wal_bytes},
  };
}

}  // namespace ddbd::storage
