// How a table's streams are named to clients: stream ARNs, the shard of a stream, sequence
// numbers, shard iterators and event ids. Every stream has one shard, open while the
// stream is enabled; its records carry the database's global sequence numbers.
//
// Entry points: ParseStreamArn, ShardId, SequenceNumberText, ParseSequenceNumber,
// EncodeShardIterator, DecodeShardIterator, EventName, EventId.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

#include "model/result.h"
#include "model/table_def.h"
#include "storage/stream_record.h"

namespace ddbd::streams {

// The parts of a well-formed stream ARN,
// "arn:<partition>:dynamodb:<region>:<account>:table/<name>/stream/<label>"; views into it.
struct StreamArnParts {
  std::string_view table_name;
  std::string_view label;
  // Listing order: ListStreams lists tables by name and each table's streams oldest first,
  // and labels are creation times, so (name, label) orders every stream ARN.
  friend bool operator<(const StreamArnParts& a, const StreamArnParts& b) {
    return std::tie(a.table_name, a.label) < std::tie(b.table_name, b.label);
  }
};

// Returns nullopt when `arn` is not a stream ARN (wrong shape, invalid table name, no label).
std::optional<StreamArnParts> ParseStreamArn(std::string_view arn);

// The id of the stream's only shard: "shardId-<creation time, 20 digits>-<8 hex digits>"
// (DynamoDB's shape; 28 characters or more, as the API model requires).
std::string ShardId(const StreamSpec& stream);

// A sequence number as the API writes it: 21 decimal digits.
std::string SequenceNumberText(uint64_t sequence);
// Returns nullopt unless `text` is 1 to 21 decimal digits.
std::optional<uint64_t> ParseSequenceNumber(std::string_view text);

// Where a reader of a shard is: after the record numbered `after` (0: before the first), as
// told at `issued_ms` (the service clock's time when the iterator was handed out).
struct ShardPosition {
  std::string stream_arn;
  uint64_t after = 0;
  int64_t issued_ms = 0;
};

// How long an iterator may be used: DynamoDB's 15 minutes.
inline constexpr int64_t kShardIteratorLifetimeMs = 15 * 60 * 1000;

// A shard iterator is "<stream ARN>|<sequence number>|<issued ms>": opaque to clients, and
// free of any state here, so an iterator stays usable across restarts while it is young and
// its records are retained.
std::string EncodeShardIterator(const ShardPosition& position);
// Returns nullopt when `iterator` is not one EncodeShardIterator wrote.
std::optional<ShardPosition> DecodeShardIterator(std::string_view iterator);

// ExpiredIteratorException when `position` was issued more than kShardIteratorLifetimeMs
// before `now_ms`.
Status CheckIteratorAge(const ShardPosition& position, int64_t now_ms);

// A record's eventName: INSERT, MODIFY or REMOVE.
std::string_view EventName(storage::StreamEvent event);

// A record's eventID: unique across streams (32 hex digits of stream id and sequence).
std::string EventId(const StreamSpec& stream, uint64_t sequence);

}  // namespace ddbd::streams
