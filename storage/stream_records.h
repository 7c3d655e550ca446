// The stored form of DynamoDB Streams records (layout in FORMAT.md): one value per change of
// an item, keyed by its stream's id and its sequence number.
// Entry points: EncodeStreamRecord, DecodeStreamRecord, StreamRecordKey.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "model/attribute_value.h"
#include "model/result.h"

namespace ddbd::storage {

enum class StreamEvent : uint8_t { kInsert = 1, kModify = 2, kRemove = 3 };

struct StreamRecord {
  uint64_t sequence = 0;
  StreamEvent event = StreamEvent::kInsert;
  int64_t time_ms = 0;
  bool by_ttl = false;  // a Time to Live deletion (DynamoDB names the service as its author)
  Item keys;
  std::optional<Item> new_image;  // as the stream's view type asks
  std::optional<Item> old_image;
  size_t size_bytes = 0;  // keys and images, by DynamoDB's item measure
};

// `new_item` / `old_item` are stored item encodings (EncodeItem), empty when the record
// does not carry that image.
std::string EncodeStreamRecord(StreamEvent event, int64_t time_ms, bool by_ttl,
                               const AttributeMap& keys, std::string_view new_item,
                               std::string_view old_item, size_t size_bytes);
Result<StreamRecord> DecodeStreamRecord(uint64_t sequence, std::string_view bytes);

// table-prefix(stream id) ‖ sequence (8 bytes, big-endian): a stream's records in order.
std::string StreamRecordKey(uint64_t stream_id, uint64_t sequence);

}  // namespace ddbd::storage
