// Stream ARNs, shard ids, sequence numbers and shard iterators.
#include "streams/shards.h"

#include <cinttypes>
#include <cstdio>
#include <ctime>

namespace ddbd::streams {

std::optional<StreamArnParts> ParseStreamArn(std::string_view arn) {
  std::string_view fields[5];
  for (std::string_view& field : fields) {
    const size_t colon = arn.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    field = arn.substr(0, colon);
    arn.remove_prefix(colon + 1);
  }
  if (fields[0] != "arn" || fields[1].empty() || fields[2] != "dynamodb" || fields[3].empty() ||
      fields[4].empty() || arn.substr(0, 6) != "table/") {
    return std::nullopt;
  }
  arn.remove_prefix(6);
  const size_t stream_at = arn.find("/stream/");
  if (stream_at == std::string_view::npos) return std::nullopt;
  StreamArnParts parts{arn.substr(0, stream_at), arn.substr(stream_at + 8)};
  if (parts.table_name.size() < 3 || parts.table_name.size() > 255 ||
      !IsValidResourceName(parts.table_name) || parts.label.empty()) {
    return std::nullopt;
  }
  return parts;
}

std::string ShardId(const StreamSpec& stream) {
  char text[64];
  std::snprintf(text, sizeof text, "shardId-%020" PRId64 "-%08" PRIx64, stream.created_ms,
                stream.id & 0xffffffff);
  return text;
}

std::string SequenceNumberText(uint64_t sequence) {
  char text[32];
  std::snprintf(text, sizeof text, "%021" PRIu64, sequence);
  return text;
}

std::optional<uint64_t> ParseSequenceNumber(std::string_view text) {
  // 21 digits stay below 2^64 only up to 18446744073709551615 (20 digits); a 21-digit
  // number from a client is refused rather than wrapped.
  if (text.empty() || text.size() > 21) return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

std::string EncodeShardIterator(const ShardPosition& position) {
  return position.stream_arn + "|" + SequenceNumberText(position.after) + "|" +
         std::to_string(position.issued_ms);
}

std::optional<ShardPosition> DecodeShardIterator(std::string_view iterator) {
  const size_t time_bar = iterator.rfind('|');
  if (time_bar == std::string_view::npos || time_bar == 0) return std::nullopt;
  const size_t bar = iterator.rfind('|', time_bar - 1);
  if (bar == std::string_view::npos) return std::nullopt;
  const std::optional<uint64_t> after =
      ParseSequenceNumber(iterator.substr(bar + 1, time_bar - bar - 1));
  const std::optional<uint64_t> issued = ParseSequenceNumber(iterator.substr(time_bar + 1));
  const std::string_view arn = iterator.substr(0, bar);
  if (!after || !issued || *issued > uint64_t(INT64_MAX) || !ParseStreamArn(arn)) {
    return std::nullopt;
  }
  return ShardPosition{std::string(arn), *after, static_cast<int64_t>(*issued)};
}

namespace {

// "Wed Dec 02 14:00:00 UTC 2026", as Java's Date prints in UTC.
std::string JavaDate(int64_t ms) {
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  std::strftime(text, sizeof text, "%a %b %d %H:%M:%S UTC %Y", &utc);
  return text;
}

}  // namespace

// The words of Kinesis's ExpiredIteratorException with DynamoDB Streams' 15 minutes
// (unverified: DynamoDB Streams' own text is not recorded).
Status CheckIteratorAge(const ShardPosition& position, int64_t now_ms) {
  if (now_ms - position.issued_ms <= kShardIteratorLifetimeMs) return OkStatus();
  return Error::ExpiredIterator("Iterator expired. The iterator was created at time " +
                                JavaDate(position.issued_ms) + " while right now it is " +
                                JavaDate(now_ms) +
                                " which is further in the future than the tolerated delay of " +
                                std::to_string(kShardIteratorLifetimeMs) + " milliseconds.");
}

std::string_view EventName(storage::StreamEvent event) {
  switch (event) {
    case storage::StreamEvent::kInsert:
      return "INSERT";
    case storage::StreamEvent::kRemove:
      return "REMOVE";
    case storage::StreamEvent::kModify:
      break;
  }
  return "MODIFY";
}

std::string EventId(const StreamSpec& stream, uint64_t sequence) {
  char text[40];
  std::snprintf(text, sizeof text, "%016" PRIx64 "%016" PRIx64, stream.id, sequence);
  return text;
}

}  // namespace ddbd::streams
