// Encoding of stream records.
#include "storage/stream_records.h"

#include "storage/binary_io.h"
#include "storage/item_codec.h"
#include "storage/key_codec.h"

namespace ddbd::storage {
namespace {

constexpr uint8_t kByTtl = 1;
constexpr uint8_t kHasNew = 1;
constexpr uint8_t kHasOld = 2;

Error Corrupt() { return Error::Internal("corrupt stream record"); }

}  // namespace

std::string EncodeStreamRecord(StreamEvent event, int64_t time_ms, bool by_ttl,
                               const AttributeMap& keys, std::string_view new_item,
                               std::string_view old_item, size_t size_bytes) {
  std::string out;
  ByteWriter w(out);
  w.Byte(static_cast<uint8_t>(event));
  w.Byte(by_ttl ? kByTtl : 0);
  w.SignedVarint(time_ms);
  w.Varint(size_bytes);
  w.Bytes(EncodeItem(keys));
  w.Byte((new_item.empty() ? 0 : kHasNew) | (old_item.empty() ? 0 : kHasOld));
  if (!new_item.empty()) w.Bytes(new_item);
  if (!old_item.empty()) w.Bytes(old_item);
  return out;
}

Result<StreamRecord> DecodeStreamRecord(uint64_t sequence, std::string_view bytes) {
  StreamRecord record;
  record.sequence = sequence;
  ByteReader in(bytes);
  const uint8_t event = in.Byte();
  if (event < 1 || event > 3) return Corrupt();
  record.event = static_cast<StreamEvent>(event);
  record.by_ttl = (in.Byte() & kByTtl) != 0;
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
