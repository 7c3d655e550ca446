// Database: stream records. Write parts append them in the write's own batch (numbered at
// commit, storage/batch_builder.cc); here they are read in sequence order, bounded and
// trimmed.
#include "storage/internal/binary_io.h"
#include "storage/internal/database_impl.h"
#include "storage/internal/key_codec.h"
#include "storage/internal/stream_codec.h"

namespace ddbd::storage {

Result<std::vector<StreamRecord>> Database::ReadStream(uint64_t stream_id, uint64_t after,
                                                       size_t limit) {
  std::vector<StreamRecord> records;
  const std::string end = TablePrefix(stream_id + 1);
  rocksdb::ReadOptions options;
  rocksdb::Slice upper(end);
  options.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(impl_->db->NewIterator(options, impl_->indexes));
  const size_t prefix = TablePrefix(stream_id).size();
  for (it->Seek(StreamRecordKey(stream_id, after + 1)); it->Valid() && records.size() < limit;
       it->Next()) {
    const std::string_view key(it->key().data(), it->key().size());
    const uint64_t sequence = ByteReader(key.substr(prefix)).FixedBigEndian64();
    DDBD_ASSIGN_OR_RETURN(
        StreamRecord record,
        DecodeStreamRecord(sequence, std::string_view(it->value().data(), it->value().size())));
    records.push_back(std::move(record));
  }
  if (!it->status().ok()) return StorageError(it->status());
  return records;
}

namespace {

std::string TrimKey(uint64_t stream_id) {
  std::string key(1, kTrimPrefix);
  key += TablePrefix(stream_id);
  return key;
}

}  // namespace

Result<uint64_t> Database::StreamTrimPoint(uint64_t stream_id) {
  std::string stored;
  rocksdb::Status status =
      impl_->db->Get(rocksdb::ReadOptions(), impl_->catalog, TrimKey(stream_id), &stored);
  if (status.IsNotFound()) return uint64_t{0};
  if (!status.ok()) return StorageError(status);
  return ByteReader(stored).FixedBigEndian64();
}

Result<uint64_t> Database::TrimStream(uint64_t stream_id, int64_t before_ms) {
  // The scan reads without the lock (readers call this before every GetRecords, and usually
  // nothing is old enough); only a trim that removes something takes it.
  uint64_t trimmed = 0;
  uint64_t last = 0;
  // Usually nothing is old enough: look at the first record alone before reading on.
  for (size_t batch = 1;; batch = 256) {
    DDBD_ASSIGN_OR_RETURN(auto records, ReadStream(stream_id, last, batch));
    bool done = records.empty();
    for (const StreamRecord& record : records) {
      if (record.time_ms >= before_ms) {
        done = true;  // records are in time order: the rest are younger
        break;
      }
      last = record.sequence;
      ++trimmed;
    }
    if (done) break;
  }
  if (trimmed == 0) return trimmed;
  DDBD_ASSIGN_OR_RETURN(const bool moved, TrimStreamThrough(stream_id, last));
  return moved ? trimmed : uint64_t{0};
}

Result<bool> Database::TrimStreamThrough(uint64_t stream_id, uint64_t last) {
  std::lock_guard lock(impl_->trim_mutex);
  // A concurrent trim may have gone as far already: the mark only grows.
  DDBD_ASSIGN_OR_RETURN(const uint64_t marked, StreamTrimPoint(stream_id));
  if (last <= marked) return false;
  rocksdb::WriteBatch batch;
  batch.DeleteRange(impl_->indexes, StreamRecordKey(stream_id, 0),
                    StreamRecordKey(stream_id, last + 1));
  std::string mark;
  ByteWriter(mark).FixedBigEndian64(last);
  batch.Put(impl_->catalog, TrimKey(stream_id), mark);
  DDBD_RETURN_IF_ERROR(impl_->Commit(batch));
  return true;
}

Result<std::optional<std::pair<uint64_t, uint64_t>>> Database::StreamBounds(uint64_t stream_id) {
  const std::string begin = TablePrefix(stream_id), end = TablePrefix(stream_id + 1);
  std::unique_ptr<rocksdb::Iterator> it(
      impl_->db->NewIterator(rocksdb::ReadOptions(), impl_->indexes));
  auto sequence_at = [&]() -> std::optional<uint64_t> {
    if (!it->Valid() || !it->key().starts_with(begin)) return std::nullopt;
    return ByteReader(
               std::string_view(it->key().data() + begin.size(), it->key().size() - begin.size()))
        .FixedBigEndian64();
  };
  it->Seek(begin);
  const std::optional<uint64_t> first = sequence_at();
  it->SeekForPrev(end);  // the last key below the next id's prefix
  const std::optional<uint64_t> last = sequence_at();
  if (!it->status().ok()) return StorageError(it->status());
  if (!first || !last) return std::optional<std::pair<uint64_t, uint64_t>>();
  return std::optional(std::pair(*first, *last));
}

uint64_t Database::LastStreamSequence() {
  std::lock_guard lock(impl_->stream_mutex);
  return impl_->stream_sequence;
}

}  // namespace ddbd::storage
