// Database::Impl: the state the files that implement Database share — the RocksDB handles,
// the registered write parts, the item lock stripes, the stream sequence and the live
// statistics — and the catalog keyspace's prefixes. Internal to storage/.
#pragma once

#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/write_batch.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/error.h"
#include "storage/database.h"
#include "storage/internal/health_monitor.h"

namespace ddbd::storage {

// Catalog keyspace prefixes in the default column family. Stored on disk: never renumber.
inline constexpr char kTablePrefix = 'T';          // T scope \0 name → table record
inline constexpr char kStatsPrefix = 'S';          // S table-id → statistics (statistics.cc)
inline constexpr char kCollectionPrefix = 'C';     // C table-id ‖ enc(pk) → collection size
inline constexpr char kBackupPrefix = 'B';         // B scope \0 backup-id → backup record
inline constexpr char kSnapshotPrefix = 'P';       // P scope \0 name → snapshot record
inline constexpr char kUnownedCopiesPrefix = 'D';  // D scope \0 name → copies no snapshot owns
inline constexpr char kTrimPrefix = 'R';           // R stream-id → last trimmed sequence
inline constexpr char kExpiryPrefix = 'E';  // E table-id ‖ enc(N) ‖ item key → item's key
inline constexpr char kStampPrefix = 'G';   // G table-id ‖ item key → replica stamp
inline constexpr char kJobPrefix = 'J';     // J kind id → a job's record (job_store.cc)
inline constexpr std::string_view kNextTableIdKey = "N";
// The last stream sequence number issued: written with every batch that appends records.
inline constexpr std::string_view kStreamSequenceKey = "Q";
// The catalog key of job `id` of kind `kind`.
inline std::string JobKey(char kind, std::string_view id) {
  std::string key{kJobPrefix, kind};
  key.append(id);
  return key;
}
inline constexpr std::string_view kItemsFamily = "items";
inline constexpr std::string_view kIndexesFamily = "indexes";

// prefix ‖ table id (8 bytes BE): where a table's records of one catalog keyspace begin.
std::string CatalogPrefix(char prefix, uint64_t table_id);

// Writers of one item are serialized by a striped lock keyed by the item's storage key.
inline constexpr size_t kLockStripes = 4096;

// A request that fails in storage answers DynamoDB's bare InternalServerError; what went
// wrong goes to the log (at most once a second, so a failing disk cannot flood it) and,
// for errors that stop writes, to the health check (Database::Health).
Error StorageError(const rocksdb::Status& status);

// Live statistics of one table or index.
struct LiveStats {
  std::atomic<int64_t> item_count{0};
  std::atomic<int64_t> size_bytes{0};
};

using StatsEntries = std::map<uint64_t, TableStats>;  // id → statistics

// The statistics record of a table: entries of (id, count, bytes), 24 bytes each.
std::string StatsKey(uint64_t table_id);
std::string EncodeStats(const StatsEntries& entries);
std::string EncodeStats(uint64_t id, TableStats stats);
StatsEntries DecodeStats(const rocksdb::Slice& slice);
// Sums statistics entries by id: the merge operator of the catalog family.
std::shared_ptr<rocksdb::MergeOperator> NewStatsMergeOperator();

// A cursor over [lower, upper) of one family, forward or backward (upper "" = to the end).
std::unique_ptr<ItemCursor> NewCursor(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* family,
                                      std::string lower, std::string upper, bool forward);

struct Database::Impl {
  std::unique_ptr<rocksdb::Env> memory_env;
  std::unique_ptr<rocksdb::Env> disk_env;  // the default Env, out-of-files errors retryable
  std::shared_ptr<HealthMonitor> health = std::make_shared<HealthMonitor>();
  std::unique_ptr<rocksdb::DB> db;
  rocksdb::ColumnFamilyHandle* catalog = nullptr;  // owned by db (default family)
  rocksdb::ColumnFamilyHandle* items = nullptr;
  rocksdb::ColumnFamilyHandle* indexes = nullptr;
  rocksdb::WriteOptions write_options;
  // The database's directory ("/ddbd-in-memory" in the memory Env); CopyRange writes the table
  // files it ingests under `path`/ingest, numbered by `ingest_files`.
  std::string path;
  std::atomic<uint64_t> ingest_files{0};
  std::vector<const WritePart*> parts;
  const Clock* clock = &Clock::System();  // the time of each WriteItems call
  int64_t item_collection_limit = 0;

  std::array<std::mutex, kLockStripes> item_locks;
  std::mutex table_id_mutex;
  uint64_t next_table_id = 1;

  // Held from numbering a batch's stream records until the batch is written, so records
  // become visible in sequence order.
  std::mutex stream_mutex;
  uint64_t stream_sequence = 0;  // the last number issued
  // Serialises the writes of trims, so a stream's trim mark only grows.
  std::mutex trim_mutex;
  // Orders history records of one item written in the same millisecond. Starts above any
  // number issued before (RocksDB's sequence grows by at least one per record written).
  std::atomic<uint64_t> history_sequence{0};

  mutable std::shared_mutex stats_mutex;
  std::unordered_map<uint64_t, std::unique_ptr<LiveStats>> stats;

  LiveStats& StatsFor(uint64_t id);
  // Adds committed deltas (table → id → delta) to the live statistics.
  void ApplyStats(const std::map<uint64_t, StatsEntries>& deltas);
  // The lock stripe of an item (by its storage key).
  std::mutex& LockFor(std::string_view item_key);
  // Locks the stripes of `item_keys` in ascending order (deadlock-free for concurrent calls).
  std::vector<std::unique_lock<std::mutex>> LockAll(const std::vector<std::string>& item_keys);
  // Writes `batch` (nothing when empty).
  Status Commit(rocksdb::WriteBatch& batch);
  // Copies the keys of `family` in [from_prefix, from_end) to the same keys under
  // `to_prefix`, as of `snapshot` (nullptr: the latest state): a few in one write batch, more
  // as a table file ingested whole (no write-ahead log, no memtable). With `stats`, counts
  // the values as items (their DynamoDB size) into it. REQUIRES: `to_prefix` has the length
  // of `from_prefix` and nothing is stored under it. (table_copy.cc)
  struct RangeCopySpec {
    rocksdb::ColumnFamilyHandle* family;
    std::string from_prefix, from_end, to_prefix;
    TableStats* stats;
  };
  // Copies every range, in parallel; their table files are ingested in one step.
  Status CopyRanges(const rocksdb::Snapshot* snapshot, const std::vector<RangeCopySpec>& ranges);
  class RangeCopy;
  Status CopyRange(const rocksdb::Snapshot* snapshot, rocksdb::ColumnFamilyHandle* family,
                   const std::string& from_prefix, const std::string& from_end,
                   const std::string& to_prefix, TableStats* stats, RangeCopy& copy);

  ~Impl();
};

}  // namespace ddbd::storage
