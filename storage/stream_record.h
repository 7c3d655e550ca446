// A DynamoDB Streams record as storage keeps it: one per change of an item, numbered across
// all streams in commit order. What a record holds is decided by the streams module (its
// write part); storage stores, numbers, reads and trims records.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "model/attribute_value.h"

namespace ddbd::storage {

// Stored on disk (stream records): never renumber.
enum class StreamEvent : uint8_t { kInsert = 1, kModify = 2, kRemove = 3 };

struct StreamRecord {
  uint64_t sequence = 0;
  StreamEvent event = StreamEvent::kInsert;
  int64_t time_ms = 0;
  bool by_ttl = false;      // a Time to Live deletion (DynamoDB names the service as its author)
  bool replicated = false;  // a change another replica of a global table made first
  Item keys;
  std::optional<Item> new_image;  // as the stream's view type asks
  std::optional<Item> old_image;
  size_t size_bytes = 0;  // keys and images, by DynamoDB's item measure
};

// A record to append: the images are stored item encodings (ItemChange's), empty when the
// record does not carry that image.
struct StreamRecordDraft {
  StreamEvent event = StreamEvent::kInsert;
  int64_t time_ms = 0;
  bool by_ttl = false;
  bool replicated = false;
  Item keys;
  std::string_view new_image;
  std::string_view old_image;
  size_t size_bytes = 0;
};

}  // namespace ddbd::storage
