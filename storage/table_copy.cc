// Database: raw copies of a table's data under other ids (namespace snapshots), and their
// removal. A copy reads one RocksDB snapshot, so the items, index entries and item
// collections copied are of one moment, and the statistics written for the copy are counted
// from what was copied.
#include <rocksdb/sst_file_writer.h>

#include <thread>

#include "storage/internal/database_impl.h"
#include "storage/internal/item_codec.h"
#include "storage/internal/key_codec.h"

namespace ddbd::storage {
namespace {

// Up to this many entries are copied in one write batch; a longer range goes to a table file
// that RocksDB ingests whole, which skips the write-ahead log and the memtable.
constexpr size_t kBatchedEntries = 1000;

}  // namespace

// One range's copy: its first entries in a write batch, the rest (once the range proves long)
// in a table file to ingest. Removes its file when done (moved away by then, unless the
// ingestion copied it or never happened).
class Database::Impl::RangeCopy {
 public:
  RangeCopy(Impl& impl, rocksdb::ColumnFamilyHandle* family) : impl_(impl), family_(family) {}
  ~RangeCopy() {
    if (!path_.empty()) impl_.db->GetEnv()->DeleteFile(path_).PermitUncheckedError();
  }

  Status Add(const std::string& key, std::string_view value) {
    if (!writer_ && head_.size() < kBatchedEntries) {
      head_.emplace_back(key, value);
      return OkStatus();
    }
    if (!writer_) {
      DDBD_RETURN_IF_ERROR(OpenFile());
      for (const auto& [head_key, head_value] : head_)
        DDBD_RETURN_IF_ERROR(Put(head_key, head_value));
      head_ = {};
    }
    return Put(key, value);
  }

  // Commits the batched entries, or finishes (and syncs) the file and returns what to ingest:
  // RocksDB moves the file in, or copies it when the Env cannot link.
  Result<std::optional<rocksdb::IngestExternalFileArg>> Finish() {
    if (!writer_) {
      rocksdb::WriteBatch batch;
      for (const auto& [key, value] : head_) batch.Put(family_, key, value);
      DDBD_RETURN_IF_ERROR(impl_.Commit(batch));
      return std::optional<rocksdb::IngestExternalFileArg>();
    }
    rocksdb::Status status = writer_->Finish();
    if (!status.ok()) return StorageError(status);
    rocksdb::IngestExternalFileArg file;
    file.column_family = family_;
    file.external_files = {path_};
    file.options.move_files = true;
    // The copy's keys are under a new table id that no reader has seen, so no snapshot
    // (the copy's own, an export's) needs them hidden: without that, RocksDB gives the
    // file a global sequence number, and a file at the bottom level with one is compacted
    // again at once ("BottommostFiles") just to zero it — a rewrite of the whole copy, with
    // compression, on the server's cores. A file that overlaps nothing gets sequence 0.
    file.options.snapshot_consistency = false;
    // A sequence number, when one is given, goes to the manifest only: the file is not
    // rewritten.
    file.options.write_global_seqno = false;
    return std::optional<rocksdb::IngestExternalFileArg>(std::move(file));
  }

 private:
  Status OpenFile() {
    rocksdb::Env* env = impl_.db->GetEnv();
    const std::string directory = impl_.path + "/ingest";
    env->CreateDirIfMissing(directory).PermitUncheckedError();
    path_ = directory + "/" + std::to_string(++impl_.ingest_files) + ".sst";
    rocksdb::Options options = impl_.db->GetOptions(family_);
    // Compaction compresses the data later; the copy itself should cost a memcpy. The file is
    // read back at once (ingestion, then reads of the copy): its pages stay cached.
    options.compression = rocksdb::kNoCompression;
    // Written back while the copy runs, so that the sync that ends it has little left to wait
    // for: the copy is bound by the disk's write rate (docs/PERFORMANCE.md).
    options.bytes_per_sync = 1 << 20;
    writer_ = std::make_unique<rocksdb::SstFileWriter>(rocksdb::EnvOptions(options), options,
                                                       family_, /*invalidate_page_cache=*/false);
    rocksdb::Status status = writer_->Open(path_);
    if (!status.ok()) return StorageError(status);
    return OkStatus();
  }

  Status Put(const std::string& key, std::string_view value) {
    rocksdb::Status status = writer_->Put(key, rocksdb::Slice(value.data(), value.size()));
    if (!status.ok()) return StorageError(status);
    return OkStatus();
  }

  Impl& impl_;
  rocksdb::ColumnFamilyHandle* family_;
  std::vector<std::pair<std::string, std::string>> head_;
  std::string path_;
  std::unique_ptr<rocksdb::SstFileWriter> writer_;
};

Status Database::Impl::CopyRange(const rocksdb::Snapshot* snapshot,
                                 rocksdb::ColumnFamilyHandle* family,
                                 const std::string& from_prefix, const std::string& from_end,
                                 const std::string& to_prefix, TableStats* stats, RangeCopy& copy) {
  rocksdb::ReadOptions options;
  options.snapshot = snapshot;
  rocksdb::Slice upper(from_end);
  options.iterate_upper_bound = &upper;
  // A bulk read: its blocks should not push the working set out of the block cache.
  options.fill_cache = false;
  // Read in large sequential chunks rather than a system call per block.
  options.readahead_size = 4 << 20;
  // A range across partitions: the items family's prefix filter must not be used.
  options.total_order_seek = true;
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(options, family));
  std::string key;
  for (it->Seek(from_prefix); it->Valid(); it->Next()) {
    const std::string_view value(it->value().data(), it->value().size());
    if (stats) {
      DDBD_ASSIGN_OR_RETURN(size_t size, StoredItemSize(value));
      ++stats->item_count;
      stats->size_bytes += static_cast<int64_t>(size);
    }
    // Same-length prefixes keep the keys' order, as a table file requires.
    key.assign(to_prefix);
    key.append(it->key().data() + from_prefix.size(), it->key().size() - from_prefix.size());
    DDBD_RETURN_IF_ERROR(copy.Add(key, value));
  }
  if (!it->status().ok()) return StorageError(it->status());
  return OkStatus();
}

Status Database::Impl::CopyRanges(const rocksdb::Snapshot* snapshot,
                                  const std::vector<RangeCopySpec>& ranges) {
  std::vector<std::unique_ptr<RangeCopy>> copies;
  for (const RangeCopySpec& range : ranges) {
    copies.push_back(std::make_unique<RangeCopy>(*this, range.family));
  }
  // The ranges are read, written and synced in parallel (each on its own thread but the
  // first); their files are ingested together once all are complete.
  std::vector<Result<std::optional<rocksdb::IngestExternalFileArg>>> results(
      ranges.size(), std::optional<rocksdb::IngestExternalFileArg>());
  auto run = [&](size_t i) {
    Status copied = CopyRange(snapshot, ranges[i].family, ranges[i].from_prefix, ranges[i].from_end,
                              ranges[i].to_prefix, ranges[i].stats, *copies[i]);
    results[i] = copied.ok() ? copies[i]->Finish() : copied.error();
  };
  std::vector<std::thread> helpers;
  for (size_t i = 1; i < ranges.size(); ++i) helpers.emplace_back(run, i);
  run(0);
  for (std::thread& helper : helpers) helper.join();
  std::vector<rocksdb::IngestExternalFileArg> files;
  for (auto& result : results) {
    if (!result.ok()) return result.error();
    if (*result) files.push_back(std::move(**result));
  }
  if (files.empty()) return OkStatus();
  // One ingestion for every family: the files become visible together.
  rocksdb::Status status = db->IngestExternalFiles(files);
  if (!status.ok()) return StorageError(status);
  return OkStatus();
}

Result<TableStats> Database::CloneTable(const TableDef& from, const TableDef& to) {
  if (from.indexes.size() != to.indexes.size()) {
    return Error::Internal("CloneTable: the copy's indexes do not match the table's");
  }
  const rocksdb::Snapshot* snapshot = impl_->db->GetSnapshot();
  struct Release {
    rocksdb::DB* db;
    const rocksdb::Snapshot* snapshot;
    ~Release() { db->ReleaseSnapshot(snapshot); }
  } release{impl_->db.get(), snapshot};

  StatsEntries stats;
  // Filled before the copies start: the ranges point into `stats`.
  stats[to.id];
  for (size_t i = 0; i < from.indexes.size(); ++i) stats[to.indexes[i].id];
  std::vector<Impl::RangeCopySpec> ranges;
  ranges.push_back({impl_->items, TablePrefix(from.id), TablePrefix(from.id + 1),
                    TablePrefix(to.id), &stats[to.id]});
  for (size_t i = 0; i < from.indexes.size(); ++i) {
    const uint64_t source = from.indexes[i].id, copy = to.indexes[i].id;
    ranges.push_back({impl_->indexes, TablePrefix(source), TablePrefix(source + 1),
                      TablePrefix(copy), &stats[copy]});
  }
  ranges.push_back({impl_->catalog, CatalogPrefix(kCollectionPrefix, from.id),
                    CatalogPrefix(kCollectionPrefix, from.id + 1),
                    CatalogPrefix(kCollectionPrefix, to.id), nullptr});
  DDBD_RETURN_IF_ERROR(impl_->CopyRanges(snapshot, ranges));
  rocksdb::WriteBatch batch;
  batch.Merge(impl_->catalog, StatsKey(to.id), EncodeStats(stats));
  DDBD_RETURN_IF_ERROR(impl_->Commit(batch));
  impl_->ApplyStats({{to.id, stats}});
  return stats[to.id];
}

Status Database::DropTableData(const TableDef& table) {
  rocksdb::WriteBatch batch;
  batch.Delete(impl_->catalog, StatsKey(table.id));
  batch.DeleteRange(impl_->items, TablePrefix(table.id), TablePrefix(table.id + 1));
  for (const auto& index : table.indexes) {
    batch.DeleteRange(impl_->indexes, TablePrefix(index.id), TablePrefix(index.id + 1));
  }
  for (char prefix : {kCollectionPrefix, kExpiryPrefix, kStampPrefix}) {
    batch.DeleteRange(impl_->catalog, CatalogPrefix(prefix, table.id),
                      CatalogPrefix(prefix, table.id + 1));
  }
  std::vector<uint64_t> record_ids;
  for (const auto& stream : table.streams) record_ids.push_back(stream.id);
  for (const auto& destination : table.kinesis_destinations) {
    record_ids.push_back(destination.records_id);
  }
  for (uint64_t id : record_ids) {
    batch.DeleteRange(impl_->indexes, TablePrefix(id), TablePrefix(id + 1));
    batch.Delete(impl_->catalog, std::string(1, kTrimPrefix) + TablePrefix(id));
  }
  if (table.pitr_history_id != 0) {
    batch.DeleteRange(impl_->indexes, TablePrefix(table.pitr_history_id),
                      TablePrefix(table.pitr_history_id + 1));
  }
  DDBD_RETURN_IF_ERROR(impl_->Commit(batch));
  std::unique_lock lock(impl_->stats_mutex);
  impl_->stats.erase(table.id);
  for (const auto& index : table.indexes) impl_->stats.erase(index.id);
  return OkStatus();
}

}  // namespace ddbd::storage
