// Database: opening and tuning RocksDB, the shared Impl, health, flush. Three column
// families: "default" holds the catalog, statistics, backups and expiries; "items" the items;
// "indexes" index entries and stream records (storage/FORMAT.md).
#include <rocksdb/filter_policy.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>
#include <xxhash.h>

#include <algorithm>

#include "model/log.h"
#include "storage/database.h"
#include "storage/internal/binary_io.h"
#include "storage/internal/database_impl.h"
#include "storage/internal/key_codec.h"

namespace ddbd::storage {

Error StorageError(const rocksdb::Status& status) {
  static log::Every every;
  if (every.Due()) log::Error("storage error: %s", status.ToString().c_str());
  return Error::Internal();
}

LiveStats& Database::Impl::StatsFor(uint64_t id) {
  {
    std::shared_lock lock(stats_mutex);
    auto it = stats.find(id);
    if (it != stats.end()) return *it->second;
  }
  std::unique_lock lock(stats_mutex);
  auto& slot = stats[id];
  if (!slot) slot = std::make_unique<LiveStats>();
  return *slot;
}

void Database::Impl::ApplyStats(const std::map<uint64_t, StatsEntries>& deltas) {
  for (const auto& [table, entries] : deltas) {
    for (const auto& [id, delta] : entries) {
      LiveStats& live = StatsFor(id);
      live.item_count += delta.item_count;
      live.size_bytes += delta.size_bytes;
    }
  }
}

std::mutex& Database::Impl::LockFor(std::string_view item_key) {
  return item_locks[XXH64(item_key.data(), item_key.size(), 1) % kLockStripes];
}

std::vector<std::unique_lock<std::mutex>> Database::Impl::LockAll(
    const std::vector<std::string>& item_keys) {
  std::vector<size_t> stripes;
  stripes.reserve(item_keys.size());
  for (const std::string& key : item_keys) {
    stripes.push_back(XXH64(key.data(), key.size(), 1) % kLockStripes);
  }
  std::sort(stripes.begin(), stripes.end());
  stripes.erase(std::unique(stripes.begin(), stripes.end()), stripes.end());
  std::vector<std::unique_lock<std::mutex>> locks;
  locks.reserve(stripes.size());
  for (size_t stripe : stripes) locks.emplace_back(item_locks[stripe]);
  return locks;
}

Status Database::Impl::Commit(rocksdb::WriteBatch& batch) {
  if (batch.Count() == 0) return OkStatus();
  rocksdb::Status status = db->Write(write_options, &batch);
  if (!status.ok()) return StorageError(status);
  return OkStatus();
}

Database::Impl::~Impl() {
  health->Stop();
  if (db) {
    if (items) db->DestroyColumnFamilyHandle(items).PermitUncheckedError();
    if (indexes) db->DestroyColumnFamilyHandle(indexes).PermitUncheckedError();
    db->Close().PermitUncheckedError();
  }
}

namespace {

rocksdb::Options DatabaseOptions(const OpenOptions& options, Database::Impl& impl) {
  rocksdb::Options db_options;
  db_options.create_if_missing = true;
  db_options.create_missing_column_families = true;
  db_options.max_background_jobs = 2;
  db_options.max_open_files = options.max_open_files;
  db_options.listeners.push_back(impl.health);
  // Without a bound the log grows until the slowest family (the catalog's statistics)
  // flushes: hundreds of MB, and a slow restart.
  db_options.max_total_wal_size = options.max_wal_bytes;
  // Each open renames the info log to LOG.old.<time>: keep a few, not one per restart.
  db_options.keep_log_file_num = 3;
  db_options.max_log_file_size = 16 << 20;
  // Memory: the whole database's memtables are capped so memory stays bounded under
  // sustained writes.
  db_options.db_write_buffer_size = 64 << 20;
  if (options.in_memory) {
    impl.memory_env.reset(rocksdb::NewMemEnv(rocksdb::Env::Default()));
    db_options.env = impl.memory_env.get();
    impl.write_options.disableWAL = true;
  } else {
    impl.disk_env = rocksdb::NewCompositeEnv(RetryWhenOutOfFiles(rocksdb::FileSystem::Default()));
    db_options.env = impl.disk_env.get();
  }
  return db_options;
}

std::vector<rocksdb::ColumnFamilyDescriptor> Families(const OpenOptions& options,
                                                      const rocksdb::Options& db_options) {
  rocksdb::BlockBasedTableOptions table_options;
  table_options.block_cache = rocksdb::NewLRUCache(options.block_cache_bytes);
  table_options.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  // Index and filter blocks live in the block cache rather than beside it (where they would
  // grow with the store, about 3 bytes per key): memory stays within the cache's bound.
  // They are partitioned, so that a lookup loads a 4 KB partition rather than a whole file's
  // index or filter (hundreds of KB, more than a cache shard holds, which a cold read would
  // load and parse each time); the partitions' top level stays pinned.
  table_options.cache_index_and_filter_blocks = true;
  table_options.index_type = rocksdb::BlockBasedTableOptions::IndexType::kTwoLevelIndexSearch;
  table_options.partition_filters = true;
  table_options.pin_top_level_index_and_filter = true;
  table_options.pin_l0_filter_and_index_blocks_in_cache = true;
  const std::shared_ptr<rocksdb::TableFactory> table_factory(
      rocksdb::NewBlockBasedTableFactory(table_options));
  // Every item write also adds a statistics merge operand to the catalog family, so its
  // memtable is kept small (flushing folds the operands).
  rocksdb::ColumnFamilyOptions catalog_options(db_options);
  catalog_options.merge_operator = NewStatsMergeOperator();
  catalog_options.write_buffer_size = 4 << 20;
  catalog_options.table_factory = table_factory;
  rocksdb::ColumnFamilyOptions item_options(db_options);
  // The items' filters hold partition prefixes only (below): half the entries of whole keys
  // and prefixes together, so more of them stay cached; a Get of an absent sort key in an
  // existing partition reads a data block, which is rare.
  rocksdb::BlockBasedTableOptions item_table_options = table_options;
  item_table_options.whole_key_filtering = false;
  item_options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(item_table_options));
  item_options.write_buffer_size = 32 << 20;
  // Every write first looks its item up; most new items are absent, and a memtable bloom
  // filter answers that without searching the skip list.
  item_options.memtable_prefix_bloom_size_ratio = 0.02;
  item_options.memtable_whole_key_filtering = true;
  // Item keys begin with table id ‖ partition hash (16 bytes, FORMAT.md): the filters hold
  // these prefixes, so that a Get or a Query seeks only in the files that hold its partition
  // instead of in every level. Every iterator of this family must therefore say how it seeks:
  // cursors use auto_prefix_mode (the filter only when both bounds share a prefix), other
  // range reads total_order_seek. Files written before this option keep working: RocksDB
  // does not use a prefix filter of a file written with another (or no) prefix extractor.
  item_options.prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(kItemKeyPrefixBytes));
  // Index entries are only ever inserted by writes (reads scan them): a smaller memtable keeps
  // the skip list shallow, and each insert cheaper, at the price of more frequent flushes.
  // Measured: PutItem with 2 GSIs rewriting both entries went from ~31 to ~29 µs of CPU.
  rocksdb::ColumnFamilyOptions index_options = item_options;
  index_options.write_buffer_size = 8 << 20;
  // Stream records and vector entries share this family with keys of other shapes: whole-key
  // filters, no prefix.
  index_options.prefix_extractor.reset();
  index_options.table_factory = table_factory;
  return {{rocksdb::kDefaultColumnFamilyName, catalog_options},
          {std::string(kItemsFamily), item_options},
          {std::string(kIndexesFamily), index_options}};
}

// Reads a catalog counter (8-byte big-endian), leaving `value` alone when it is absent.
Status ReadCounter(Database::Impl& impl, std::string_view key, uint64_t& value) {
  std::string stored;
  rocksdb::Status status = impl.db->Get(rocksdb::ReadOptions(), impl.catalog, key, &stored);
  if (status.IsNotFound()) return OkStatus();
  if (!status.ok()) return StorageError(status);
  value = ByteReader(stored).FixedBigEndian64();
  return OkStatus();
}

// The statistics as last committed: the merged records of the catalog family.
Status LoadStats(Database::Impl& impl) {
  std::unique_ptr<rocksdb::Iterator> it(impl.db->NewIterator(rocksdb::ReadOptions(), impl.catalog));
  for (it->Seek(std::string(1, kStatsPrefix)); it->Valid() && it->key()[0] == kStatsPrefix;
       it->Next()) {
    for (const auto& [id, stats] : DecodeStats(it->value())) {
      LiveStats& live = impl.StatsFor(id);
      live.item_count = stats.item_count;
      live.size_bytes = stats.size_bytes;
    }
  }
  if (!it->status().ok()) return StorageError(it->status());
  return OkStatus();
}

// Opens the database at `path` with `families` (the default family first), creating what is
// missing. A new database is opened with the default family alone and the others created in
// one step: RocksDB writes, syncs and re-reads its OPTIONS file once for each family an Open
// creates and once more at its end, but once for a whole CreateColumnFamilies; and with no
// table files there is nothing for file-opening threads to do. 8.5–10 ms became 5.7–7.5 for
// three families (median of 15, alternating, one core). A crash between the two steps leaves
// a database without the other families, which the next Open creates.
rocksdb::Status OpenFamilies(rocksdb::Options db_options, const std::string& path, bool is_new,
                             const std::vector<rocksdb::ColumnFamilyDescriptor>& families,
                             std::vector<rocksdb::ColumnFamilyHandle*>& handles, rocksdb::DB*& db) {
  if (!is_new) return rocksdb::DB::Open(db_options, path, families, &handles, &db);
  db_options.max_file_opening_threads = 1;
  rocksdb::Status status = rocksdb::DB::Open(db_options, path, {families[0]}, &handles, &db);
  if (!status.ok()) return status;
  std::vector<rocksdb::ColumnFamilyHandle*> created;
  status = db->CreateColumnFamilies({families.begin() + 1, families.end()}, &created);
  handles.insert(handles.end(), created.begin(), created.end());
  if (!status.ok()) {
    for (rocksdb::ColumnFamilyHandle* handle : handles) {
      db->DestroyColumnFamilyHandle(handle).PermitUncheckedError();
    }
    handles.clear();
    delete db;
    db = nullptr;
  }
  return status;
}

}  // namespace

Database::Database(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Database::~Database() = default;

Result<std::unique_ptr<Database>> Database::Open(const OpenOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->item_collection_limit = options.item_collection_limit_bytes;
  const rocksdb::Options db_options = DatabaseOptions(options, *impl);
  const std::string path = options.in_memory ? "/ddbd-in-memory" : options.path;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  const bool is_new =
      options.in_memory || db_options.env->FileExists(path + "/CURRENT").IsNotFound();
  rocksdb::Status status =
      OpenFamilies(db_options, path, is_new, Families(options, db_options), handles, raw);
  if (!status.ok()) return StorageError(status);
  impl->db.reset(raw);
  impl->path = path;
  // Table files a copy wrote but had not ingested when the process stopped.
  std::vector<std::string> leftovers;
  if (raw->GetEnv()->GetChildren(path + "/ingest", &leftovers).ok()) {
    for (const std::string& name : leftovers) {
      raw->GetEnv()->DeleteFile(path + "/ingest/" + name).PermitUncheckedError();
    }
  }
  impl->catalog = raw->DefaultColumnFamily();
  // The default handle returned by Open is not the one DefaultColumnFamily() owns.
  raw->DestroyColumnFamilyHandle(handles[0]).PermitUncheckedError();
  impl->items = handles[1];
  impl->indexes = handles[2];
  impl->health->Start(raw);
  DDBD_RETURN_IF_ERROR(ReadCounter(*impl, kStreamSequenceKey, impl->stream_sequence));
  DDBD_RETURN_IF_ERROR(ReadCounter(*impl, kNextTableIdKey, impl->next_table_id));
  DDBD_RETURN_IF_ERROR(LoadStats(*impl));
  impl->history_sequence = raw->GetLatestSequenceNumber();
  if (options.compact_on_open && !options.in_memory) {
    for (rocksdb::ColumnFamilyHandle* family : {impl->catalog, impl->items, impl->indexes}) {
      status = raw->CompactRange(rocksdb::CompactRangeOptions(), family, nullptr, nullptr);
      if (!status.ok()) return StorageError(status);
    }
  }
  return std::unique_ptr<Database>(new Database(std::move(impl)));
}

void Database::AddWritePart(const WritePart* part) { impl_->parts.push_back(part); }

void Database::SetClock(const Clock& clock) { impl_->clock = &clock; }

uint64_t Database::LatestSequence() const { return impl_->db->GetLatestSequenceNumber(); }

Status Database::Health() const {
  if (std::optional<std::string> error = impl_->health->Error()) {
    return Error::Internal("storage: " + *error);
  }
  return OkStatus();
}

Status Database::Flush() {
  // Nothing outlives an in-memory database, so there is nothing to make durable.
  if (impl_->memory_env) return OkStatus();
  rocksdb::Status status = impl_->db->FlushWAL(/*sync=*/true);
  if (!status.ok() && !status.IsNotSupported()) return StorageError(status);
  // Writing the memtables out now spares the next start-up replaying the WAL before it can
  // answer (0.3 s after 100k item writes), at the same cost paid here instead.
  rocksdb::FlushOptions flush_options;
  flush_options.allow_write_stall = true;
  status = impl_->db->Flush(flush_options, {impl_->catalog, impl_->items, impl_->indexes});
  if (!status.ok()) return StorageError(status);
  return OkStatus();
}

}  // namespace ddbd::storage
