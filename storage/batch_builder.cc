// The batch of one write: typed records in, RocksDB keys and values out.
#include "storage/internal/batch_builder.h"

#include "storage/internal/binary_io.h"
#include "storage/internal/item_codec.h"
#include "storage/internal/key_codec.h"
#include "storage/internal/stream_codec.h"

namespace ddbd::storage {
namespace {

std::string EntryKey(const IndexEntry& entry) {
  return IndexEntryKey(entry.index->id, entry.partition, entry.sort, entry.table_key);
}

// The stored value of an index entry: the projected attributes in the item encoding. An
// ALL-projected entry holds the whole item, whose encoding the writer already has.
std::string EntryValue(const IndexEntry& entry, std::string_view item_encoding) {
  if (entry.index->projection == ProjectionType::kAll && !entry.index->IsVector()) {
    return std::string(item_encoding);
  }
  return EncodeItem(entry.projected, entry.projected_size);
}

std::string CollectionKey(uint64_t table_id, const AttributeValue& partition) {
  std::string key = CatalogPrefix(kCollectionPrefix, table_id);
  EncodeKeyValue(partition, key);
  return key;
}

}  // namespace

void BatchBuilder::BeginItem(const TableDef& table, const PrimaryKey& key) {
  table_ = &table;
  key_ = &key;
}

Result<bool> BatchBuilder::IndexEntryStored(const IndexEntry& entry) {
  rocksdb::PinnableSlice stored;
  rocksdb::Status status =
      impl_.db->Get(rocksdb::ReadOptions(), impl_.indexes, EntryKey(entry), &stored);
  if (status.IsNotFound()) return false;
  if (!status.ok()) return StorageError(status);
  return true;
}

void BatchBuilder::PutIndexEntry(const IndexEntry& entry, std::string_view item_encoding) {
  batch_.Put(impl_.indexes, EntryKey(entry), EntryValue(entry, item_encoding));
}

void BatchBuilder::DeleteIndexEntry(const IndexEntry& entry) {
  batch_.Delete(impl_.indexes, EntryKey(entry));
}

void BatchBuilder::AddStatistics(uint64_t id, TableStats delta) {
  TableStats& total = deltas_[table_->id][id];
  total.item_count += delta.item_count;
  total.size_bytes += delta.size_bytes;
}

Result<int64_t> BatchBuilder::AddToItemCollection(int64_t delta) {
  std::string key = CollectionKey(table_->id, key_->partition);
  auto it = collections_.find(key);
  if (it == collections_.end()) {
    std::string stored;
    rocksdb::Status status = impl_.db->Get(rocksdb::ReadOptions(), impl_.catalog, key, &stored);
    if (!status.ok() && !status.IsNotFound()) return StorageError(status);
    it = collections_.emplace(key, status.ok() ? DecodeStats(stored)[0].size_bytes : 0).first;
  }
  const int64_t size = it->second + delta;
  if (delta > 0 && size > impl_.item_collection_limit) {
    return Error::ItemCollectionSizeLimitExceeded();
  }
  it->second = size;
  batch_.Merge(impl_.catalog, key, EncodeStats(0, TableStats{0, delta}));
  collection_size_ = size;
  return size;
}

void BatchBuilder::AppendStreamRecord(uint64_t stream_id, const StreamRecordDraft& record) {
  records_.emplace_back(stream_id, EncodeStreamRecord(record));
}

std::string BatchBuilder::ExpiryKey(const AttributeValue& expiry) const {
  std::string key = CatalogPrefix(kExpiryPrefix, table_->id);
  EncodeKeyValue(expiry, key);
  EncodeKeyValue(key_->partition, key);
  if (key_->sort) EncodeKeyValue(*key_->sort, key);
  return key;
}

void BatchBuilder::PutExpiry(const AttributeValue& expiry) {
  batch_.Put(impl_.catalog, ExpiryKey(expiry), EncodePrimaryKey(*key_));
}

void BatchBuilder::DeleteExpiry(const AttributeValue& expiry) {
  batch_.Delete(impl_.catalog, ExpiryKey(expiry));
}

std::string BatchBuilder::StampKey() const {
  std::string key = CatalogPrefix(kStampPrefix, table_->id);
  EncodeKeyValue(key_->partition, key);
  if (key_->sort) EncodeKeyValue(*key_->sort, key);
  return key;
}

Result<std::optional<std::string>> BatchBuilder::ReplicaStamp() {
  std::string stored;
  rocksdb::Status status =
      impl_.db->Get(rocksdb::ReadOptions(), impl_.catalog, StampKey(), &stored);
  if (status.IsNotFound()) return std::optional<std::string>();
  if (!status.ok()) return StorageError(status);
  return std::optional<std::string>(std::move(stored));
}

void BatchBuilder::PutReplicaStamp(std::string_view stamp) {
  batch_.Put(impl_.catalog, StampKey(), rocksdb::Slice(stamp.data(), stamp.size()));
}

void BatchBuilder::AfterCommit(std::function<void()> notify) {
  notifications_.push_back(std::move(notify));
}

void BatchBuilder::PutItem(const std::string& item_key, std::string_view encoding) {
  batch_.Put(impl_.items, item_key, encoding);
}

void BatchBuilder::DeleteItem(const std::string& item_key) { batch_.Delete(impl_.items, item_key); }

void BatchBuilder::PutJob(char kind, std::string_view id, std::string_view bytes) {
  batch_.Put(impl_.catalog, JobKey(kind, id), bytes);
}

Status BatchBuilder::Commit() {
  std::unique_lock<std::mutex> stream_lock;
  if (!records_.empty()) {
    stream_lock = std::unique_lock(impl_.stream_mutex);
    for (auto& [stream_id, record] : records_) {
      batch_.Put(impl_.indexes, StreamRecordKey(stream_id, ++impl_.stream_sequence), record);
    }
    std::string last;
    ByteWriter(last).FixedBigEndian64(impl_.stream_sequence);
    batch_.Put(impl_.catalog, kStreamSequenceKey, last);
  }
  for (auto& [table, entries] : deltas_) {
    std::erase_if(entries, [](const auto& entry) {  // e.g. a same-size replace
      return entry.second.item_count == 0 && entry.second.size_bytes == 0;
    });
    if (!entries.empty()) batch_.Merge(impl_.catalog, StatsKey(table), EncodeStats(entries));
  }
  Status committed = impl_.Commit(batch_);
  if (!committed.ok()) {
    // The numbers went unused: take them back, so that sequence numbers stay dense.
    if (stream_lock.owns_lock()) impl_.stream_sequence -= records_.size();
    return committed;
  }
  stream_lock = {};
  impl_.ApplyStats(deltas_);
  for (auto& notify : notifications_) notify();
  return OkStatus();
}

}  // namespace ddbd::storage
