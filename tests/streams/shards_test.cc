// Stream ARNs, shard ids, sequence numbers and shard iterators: their shapes and what is
// refused.
#include "streams/shards.h"

#include <gtest/gtest.h>

namespace ddbd::streams {
namespace {

constexpr std::string_view kArn =
    "arn:aws:dynamodb:us-east-1:000000000000:table/Orders/stream/2026-12-02T06:52:07.123";

TEST(ShardsTest, StreamArnsAreParsedIntoTableAndLabel) {
  const std::optional<StreamArnParts> parts = ParseStreamArn(kArn);
  ASSERT_TRUE(parts.has_value());
  EXPECT_EQ(parts->table_name, "Orders");
  EXPECT_EQ(parts->label, "2026-12-02T06:52:07.123");
  EXPECT_FALSE(ParseStreamArn("arn:aws:dynamodb:us-east-1:000000000000:table/Orders"));
  EXPECT_FALSE(ParseStreamArn("arn:aws:s3:us-east-1:000000000000:table/Orders/stream/x"));
  EXPECT_FALSE(ParseStreamArn("arn:aws:dynamodb::000000000000:table/Orders/stream/x"));
  EXPECT_FALSE(ParseStreamArn("arn:aws:dynamodb:us-east-1:000000000000:table/Or/stream/x"));
  EXPECT_FALSE(ParseStreamArn("arn:aws:dynamodb:us-east-1:000000000000:table/O$rders/stream/x"));
  EXPECT_FALSE(ParseStreamArn("arn:aws:dynamodb:us-east-1:000000000000:table/Orders/stream/"));
}

TEST(ShardsTest, StreamsListByTableNameThenLabel) {
  EXPECT_TRUE((StreamArnParts{"a", "2026"} < StreamArnParts{"b", "2025"}));
  EXPECT_TRUE((StreamArnParts{"a", "2025"} < StreamArnParts{"a", "2026"}));
  EXPECT_FALSE((StreamArnParts{"a", "2026"} < StreamArnParts{"a", "2026"}));
}

TEST(ShardsTest, ShardIdHasDynamoDBsShape) {
  StreamSpec stream;
  stream.id = 0x1234567890;
  stream.created_ms = 1764658327123;
  EXPECT_EQ(ShardId(stream), "shardId-00000001764658327123-34567890");
}

TEST(ShardsTest, SequenceNumbersAreTwentyOneDigits) {
  EXPECT_EQ(SequenceNumberText(42), "000000000000000000042");
  EXPECT_EQ(ParseSequenceNumber("000000000000000000042"), 42u);
  EXPECT_EQ(ParseSequenceNumber("18446744073709551615"), UINT64_MAX);
  EXPECT_FALSE(ParseSequenceNumber("18446744073709551616"));  // would wrap
  EXPECT_FALSE(ParseSequenceNumber(""));
  EXPECT_FALSE(ParseSequenceNumber("0000000000000000000042"));  // 22 digits
  EXPECT_FALSE(ParseSequenceNumber("4x"));
  EXPECT_FALSE(ParseSequenceNumber("-1"));
}

TEST(ShardsTest, ShardIteratorsRoundTripAndRefuseAnythingElse) {
  const std::string iterator = EncodeShardIterator({std::string(kArn), 7, 1'700'000'000'123});
  const std::optional<ShardPosition> position = DecodeShardIterator(iterator);
  ASSERT_TRUE(position.has_value());
  EXPECT_EQ(position->stream_arn, kArn);
  EXPECT_EQ(position->after, 7u);
  EXPECT_EQ(position->issued_ms, 1'700'000'000'123);
  EXPECT_FALSE(DecodeShardIterator("no bar here"));
  EXPECT_FALSE(DecodeShardIterator(std::string(kArn) + "|"));
  EXPECT_FALSE(DecodeShardIterator(std::string(kArn) + "|7"));  // without its issue time
  EXPECT_FALSE(DecodeShardIterator(std::string(kArn) + "|x|5"));
  EXPECT_FALSE(DecodeShardIterator(std::string(kArn) + "|7|-5"));
  EXPECT_FALSE(DecodeShardIterator(std::string(kArn) + "|7|99999999999999999999"));
  EXPECT_FALSE(DecodeShardIterator("not-an-arn|7|5"));
}

TEST(ShardsTest, IteratorsExpireAfterFifteenMinutes) {
  const ShardPosition position{std::string(kArn), 7, 1'764'684'000'000};  // 2025-12-02 14:00
  EXPECT_TRUE(CheckIteratorAge(position, position.issued_ms).ok());
  EXPECT_TRUE(CheckIteratorAge(position, position.issued_ms + 900'000).ok());
  Status expired = CheckIteratorAge(position, position.issued_ms + 900'001);
  ASSERT_FALSE(expired.ok());
  EXPECT_EQ(expired.error().code(), ErrorCode::kExpiredIterator);
  EXPECT_EQ(expired.error().message(),
            "Iterator expired. The iterator was created at time Tue Dec 02 14:00:00 UTC 2025 "
            "while right now it is Tue Dec 02 14:15:00 UTC 2025 which is further in the future "
            "than the tolerated delay of 900000 milliseconds.");
}

TEST(ShardsTest, EventIdsNameStreamAndSequence) {
  StreamSpec stream;
  stream.id = 3;
  EXPECT_EQ(EventId(stream, 255), "000000000000000300000000000000ff");
}

}  // namespace
}  // namespace ddbd::streams
