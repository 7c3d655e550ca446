// Database: the point-in-time recovery history. A write part appends a record per item write
// of a table with PITR (BatchBuilder::AppendHistory, in the write's own batch); here it is
// read as "each item's state at a time", trimmed and dropped.
//
// Key (`indexes` family): history id (8 bytes BE) ‖ enc(pk) ‖ enc(sk) ‖ time ms (8 bytes BE) ‖
// sequence (8 bytes BE), so an item's records are together, oldest first. Value: the item's
// primary key (length-prefixed item encoding) ‖ the item before the write (its stored
// encoding; nothing when it was absent).
#include "model/key_encoding.h"
#include "storage/internal/batch_builder.h"
#include "storage/internal/binary_io.h"
#include "storage/internal/database_impl.h"
#include "storage/internal/item_codec.h"
#include "storage/internal/key_codec.h"

namespace ddbd::storage {
namespace {

constexpr size_t kTimeAndSequenceBytes = 16;

// The key of an item's records without their time and sequence: what groups them.
std::string HistoryItemPrefix(uint64_t history_id, const PrimaryKey& key) {
  std::string out = TablePrefix(history_id);
  EncodeKeyValue(key.partition, out);
  if (key.sort) EncodeKeyValue(*key.sort, out);
  return out;
}

struct HistoryRecord {
  std::string_view item_prefix;  // the key without time and sequence
  int64_t time_ms = 0;
  std::string_view key_encoding;
  std::string_view old_encoding;  // empty: the item was absent
};

// The time of a record, from its key alone.
Result<int64_t> RecordTime(std::string_view key) {
  if (key.size() < 8 + kTimeAndSequenceBytes) return Error::Internal("corrupt history key");
  ByteReader time(key.substr(key.size() - kTimeAndSequenceBytes, 8));
  return static_cast<int64_t>(time.FixedBigEndian64());
}

Result<HistoryRecord> ReadRecord(std::string_view key, std::string_view value) {
  HistoryRecord record;
  DDBD_ASSIGN_OR_RETURN(record.time_ms, RecordTime(key));
  record.item_prefix = key.substr(0, key.size() - kTimeAndSequenceBytes);
  ByteReader in(value);
  record.key_encoding = in.Bytes();
  if (!in.ok()) return Error::Internal("corrupt history record");
  record.old_encoding = value.substr(value.size() - in.remaining());
  return record;
}

// Visits every record of history `history_id` (key, value), in key order.
Status ForEachRecord(Database::Impl& impl, uint64_t history_id,
                     const std::function<Status(std::string_view, std::string_view)>& visit) {
  const std::string begin = TablePrefix(history_id), end = TablePrefix(history_id + 1);
  rocksdb::ReadOptions options;
  rocksdb::Slice upper(end);
  options.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(impl.db->NewIterator(options, impl.indexes));
  for (it->Seek(begin); it->Valid(); it->Next()) {
    DDBD_RETURN_IF_ERROR(visit(it->key().ToStringView(), it->value().ToStringView()));
  }
  if (!it->status().ok()) return StorageError(it->status());
  return OkStatus();
}

}  // namespace

void BatchBuilder::AppendHistory(uint64_t history_id, int64_t at_ms,
                                 std::string_view old_encoding) {
  std::string key = HistoryItemPrefix(history_id, *key_);
  ByteWriter writer(key);
  writer.FixedBigEndian64(static_cast<uint64_t>(std::max<int64_t>(0, at_ms)));
  writer.FixedBigEndian64(++impl_.history_sequence);
  std::string value;
  ByteWriter(value).Bytes(EncodePrimaryKey(*key_));
  value.append(old_encoding);
  batch_.Put(impl_.indexes, key, value);
}

namespace {

// Visits each item written after `after_ms` once, with the raw record of its first write
// after then.
Status ForEachFirstRecordAfter(Database::Impl& impl, uint64_t history_id, int64_t after_ms,
                               const std::function<Status(const HistoryRecord&)>& visit) {
  std::string visited;  // the item prefix whose first record after `after_ms` was visited
  return ForEachRecord(impl, history_id,
                       [&](std::string_view key, std::string_view value) -> Status {
                         DDBD_ASSIGN_OR_RETURN(HistoryRecord record, ReadRecord(key, value));
                         if (record.time_ms <= after_ms || record.item_prefix == visited) {
                           return OkStatus();
                         }
                         visited = std::string(record.item_prefix);
                         return visit(record);
                       });
}

}  // namespace

Status Database::ReadHistoryAfter(
    uint64_t history_id, int64_t after_ms,
    const std::function<Status(PrimaryKey, std::optional<Item>)>& visit) {
  return ForEachFirstRecordAfter(
      *impl_, history_id, after_ms, [&](const HistoryRecord& record) -> Status {
        DDBD_ASSIGN_OR_RETURN(PrimaryKey key, DecodePrimaryKey(record.key_encoding));
        std::optional<Item> old;
        if (!record.old_encoding.empty()) {
          DDBD_ASSIGN_OR_RETURN(old, DecodeStoredItem(record.old_encoding));
        }
        return visit(std::move(key), std::move(old));
      });
}

namespace {

Result<std::optional<Item>> DecodeImage(std::string_view encoding) {
  if (encoding.empty()) return std::optional<Item>();
  DDBD_ASSIGN_OR_RETURN(Item item, DecodeStoredItem(encoding));
  return std::optional<Item>(std::move(item));
}

}  // namespace

Status Database::ReadHistoryBetween(uint64_t history_id, int64_t after_ms, int64_t through_ms,
                                    const std::function<Status(HistoryChange)>& visit) {
  std::string item_prefix;               // of `pending`
  std::optional<HistoryChange> pending;  // the current item's change, while its records last
  auto flush = [&]() -> Status {
    if (!pending) return OkStatus();
    Status visited = visit(std::move(*pending));
    pending.reset();
    return visited;
  };
  DDBD_RETURN_IF_ERROR(ForEachRecord(
      *impl_, history_id, [&](std::string_view key, std::string_view value) -> Status {
        DDBD_ASSIGN_OR_RETURN(HistoryRecord record, ReadRecord(key, value));
        if (record.item_prefix != item_prefix) {
          DDBD_RETURN_IF_ERROR(flush());
          item_prefix = std::string(record.item_prefix);
        }
        if (record.time_ms <= after_ms) return OkStatus();
        if (record.time_ms <= through_ms) {
          if (!pending) {
            pending.emplace();
            DDBD_ASSIGN_OR_RETURN(pending->key, DecodePrimaryKey(record.key_encoding));
            DDBD_ASSIGN_OR_RETURN(pending->before, DecodeImage(record.old_encoding));
          }
          pending->last_write_ms = record.time_ms;
          return OkStatus();
        }
        if (pending && !pending->written_since) {
          pending->written_since = true;
          DDBD_ASSIGN_OR_RETURN(pending->after, DecodeImage(record.old_encoding));
        }
        return OkStatus();
      }));
  return flush();
}

Result<TableStats> Database::RewindCopy(const TableDef& table, uint64_t copy_id, int64_t at_ms,
                                        TableStats copied) {
  if (table.pitr_history_id == 0) return copied;
  rocksdb::WriteBatch batch;
  Status rewound = ForEachFirstRecordAfter(
      *impl_, table.pitr_history_id, at_ms, [&](const HistoryRecord& record) -> Status {
        DDBD_ASSIGN_OR_RETURN(PrimaryKey key, DecodePrimaryKey(record.key_encoding));
        const std::string item_key = ItemKey(copy_id, key);
        rocksdb::PinnableSlice current;
        rocksdb::Status found =
            impl_->db->Get(rocksdb::ReadOptions(), impl_->items, item_key, &current);
        if (!found.ok() && !found.IsNotFound()) return StorageError(found);
        if (found.ok()) {
          DDBD_ASSIGN_OR_RETURN(size_t size, StoredItemSize(current.ToStringView()));
          copied.item_count -= 1;
          copied.size_bytes -= static_cast<int64_t>(size);
        }
        if (record.old_encoding.empty()) {
          batch.Delete(impl_->items, item_key);
          return OkStatus();
        }
        DDBD_ASSIGN_OR_RETURN(size_t size, StoredItemSize(record.old_encoding));
        copied.item_count += 1;
        copied.size_bytes += static_cast<int64_t>(size);
        batch.Put(impl_->items, item_key, record.old_encoding);
        return OkStatus();
      });
  DDBD_RETURN_IF_ERROR(rewound);
  DDBD_RETURN_IF_ERROR(impl_->Commit(batch));
  return copied;
}

Result<uint64_t> Database::TrimHistory(uint64_t history_id, int64_t before_ms) {
  uint64_t trimmed = 0;
  rocksdb::WriteBatch batch;
  DDBD_RETURN_IF_ERROR(
      ForEachRecord(*impl_, history_id, [&](std::string_view key, std::string_view) -> Status {
        DDBD_ASSIGN_OR_RETURN(int64_t time_ms, RecordTime(key));
        if (time_ms >= before_ms) return OkStatus();
        batch.Delete(impl_->indexes, key);
        if (++trimmed % 1024 != 0) return OkStatus();
        Status committed = impl_->Commit(batch);
        batch.Clear();
        return committed;
      }));
  DDBD_RETURN_IF_ERROR(impl_->Commit(batch));
  return trimmed;
}

Status Database::DropHistory(uint64_t history_id) {
  rocksdb::WriteBatch batch;
  batch.DeleteRange(impl_->indexes, TablePrefix(history_id), TablePrefix(history_id + 1));
  return impl_->Commit(batch);
}

}  // namespace ddbd::storage
