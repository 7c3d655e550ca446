// Database: raw copies of a table's data under other ids (namespace snapshots), and their
// removal. A copy reads one RocksDB snapshot, so the items, index entries and item
// collections copied are of one moment, and the statistics written for the copy are counted
// from what was copied.
#include "storage/internal/database_impl.h"
#include "storage/internal/item_codec.h"
#include "storage/internal/key_codec.h"

namespace ddbd::storage {
namespace {

// Commits every kCopyBatch puts: a large table never makes one huge batch.
constexpr int kCopyBatch = 1000;

}  // namespace

Status Database::Impl::CopyRange(const rocksdb::Snapshot* snapshot,
                                 rocksdb::ColumnFamilyHandle* family,
                                 const std::string& from_prefix, const std::string& from_end,
                                 const std::string& to_prefix, TableStats* stats) {
  rocksdb::ReadOptions options;
  options.snapshot = snapshot;
  rocksdb::Slice upper(from_end);
  options.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(options, family));
  rocksdb::WriteBatch batch;
  std::string key;
  for (it->Seek(from_prefix); it->Valid(); it->Next()) {
    const std::string_view value(it->value().data(), it->value().size());
    if (stats) {
      DDBD_ASSIGN_OR_RETURN(size_t size, StoredItemSize(value));
      ++stats->item_count;
      stats->size_bytes += static_cast<int64_t>(size);
    }
    key.assign(to_prefix);
    key.append(it->key().data() + from_prefix.size(), it->key().size() - from_prefix.size());
    batch.Put(family, key, it->value());
    if (batch.Count() >= kCopyBatch) {
      DDBD_RETURN_IF_ERROR(Commit(batch));
      batch.Clear();
    }
  }
  if (!it->status().ok()) return StorageError(it->status());
  return Commit(batch);
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
  DDBD_RETURN_IF_ERROR(impl_->CopyRange(snapshot, impl_->items, TablePrefix(from.id),
                                        TablePrefix(from.id + 1), TablePrefix(to.id),
                                        &stats[to.id]));
  for (size_t i = 0; i < from.indexes.size(); ++i) {
    const uint64_t source = from.indexes[i].id, copy = to.indexes[i].id;
    DDBD_RETURN_IF_ERROR(impl_->CopyRange(snapshot, impl_->indexes, TablePrefix(source),
                                          TablePrefix(source + 1), TablePrefix(copy),
                                          &stats[copy]));
  }
  DDBD_RETURN_IF_ERROR(impl_->CopyRange(snapshot, impl_->catalog,
                                        CatalogPrefix(kCollectionPrefix, from.id),
                                        CatalogPrefix(kCollectionPrefix, from.id + 1),
                                        CatalogPrefix(kCollectionPrefix, to.id), nullptr));
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
  for (char prefix : {kCollectionPrefix, kExpiryPrefix}) {
    batch.DeleteRange(impl_->catalog, CatalogPrefix(prefix, table.id),
                      CatalogPrefix(prefix, table.id + 1));
  }
  for (const auto& stream : table.streams) {
    batch.DeleteRange(impl_->indexes, TablePrefix(stream.id), TablePrefix(stream.id + 1));
  }
  DDBD_RETURN_IF_ERROR(impl_->Commit(batch));
  std::unique_lock lock(impl_->stats_mutex);
  impl_->stats.erase(table.id);
  for (const auto& index : table.indexes) impl_->stats.erase(index.id);
  return OkStatus();
}

}  // namespace ddbd::storage
