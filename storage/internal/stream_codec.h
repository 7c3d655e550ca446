// The stored form of DynamoDB Streams records (layout in FORMAT.md): one value per change of
// an item, keyed by its stream's id and its sequence number.
// Entry points: EncodeStreamRecord, DecodeStreamRecord, StreamRecordKey.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "model/result.h"
#include "storage/stream_record.h"

namespace ddbd::storage {

std::string EncodeStreamRecord(const StreamRecordDraft& record);
Result<StreamRecord> DecodeStreamRecord(uint64_t sequence, std::string_view bytes);

// table-prefix(stream id) ‖ sequence (8 bytes, big-endian): a stream's records in order.
std::string StreamRecordKey(uint64_t stream_id, uint64_t sequence);

}  // namespace ddbd::storage
