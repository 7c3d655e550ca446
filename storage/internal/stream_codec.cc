// Encoding of stream records.
#include "storage/internal/stream_codec.h"

#include "storage/internal/binary_io.h"
#include "storage/internal/item_codec.h"
#include "storage/internal/key_codec.h"

namespace ddbd::storage {
namespace {

constexpr uint8_t kByTtl = 1;
constexpr uint8_t kReplicated = 2;
constexpr uint8_t kHasNew = 1;
constexpr uint8_t kHasOld = 2;

Error Corrupt() { return Error::Internal("corrupt stream record"); }

}  // namespace

std::string EncodeStreamRecord(const StreamRecordDraft& record) {
  std::string out;
  ByteWriter w(out);
  w.Byte(static_cast<uint8_t>(record.event));
  w.Byte((record.by_ttl ? kByTtl : 0) | (record.replicated ? kReplicated : 0));
  w.SignedVarint(record.time_ms);
  w.Varint(record.size_bytes);
  w.Bytes(EncodeItem(record.keys));
  w.Byte((record.new_image.empty() ? 0 : kHasNew) | (record.old_image.empty() ? 0 : kHasOld));
  if (!record.new_image.empty()) w.Bytes(record.new_image);
  if (!record.old_image.empty()) w.Bytes(record.old_image);
  return out;
}

Result<StreamRecord> DecodeStreamRecord(uint64_t sequence, std::string_view bytes) {
  StreamRecord record;
  record.sequence = sequence;
  ByteReader in(bytes);
  const uint8_t event = in.Byte();
  if (event < 1 || event > 3) return Corrupt();
  record.event = static_cast<StreamEvent>(event);
  const uint8_t flags = in.Byte();
  record.by_ttl = (flags & kByTtl) != 0;
  record.replicated = (flags & kReplicated) != 0;
  record.time_ms = in.SignedVarint();
  record.size_bytes = in.Varint();
  DDBD_ASSIGN_OR_RETURN(record.keys, DecodeItem(in.Bytes()));
  const uint8_t images = in.Byte();
  if (images & kHasNew) {
    DDBD_ASSIGN_OR_RETURN(Item image, DecodeItem(in.Bytes()));
    record.new_image = std::move(image);
  }
  if (images & kHasOld) {
    DDBD_ASSIGN_OR_RETURN(Item image, DecodeItem(in.Bytes()));
    record.old_image = std::move(image);
  }
  if (!in.ok() || !in.done()) return Corrupt();
  return record;
}

std::string StreamRecordKey(uint64_t stream_id, uint64_t sequence) {
  std::string key = TablePrefix(stream_id);
  ByteWriter(key).FixedBigEndian64(sequence);
  return key;
}

}  // namespace ddbd::storage
