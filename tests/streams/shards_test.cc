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
  const std::string iterator = EncodeShardIterator({std::string(kArn), 7});
  const std::optional<ShardPosition> position = DecodeShardIterator(iterator);
  ASSERT_TRUE(position.has_value());
  EXPECT_EQ(position->stream_arn, kArn);
  EXPECT_EQ(position->after, 7u);
  EXPECT_FALSE(DecodeShardIterator("no bar here"));
  EXPECT_FALSE(DecodeShardIterator(std::string(kArn) + "|"));
  EXPECT_FALSE(DecodeShardIterator(std::string(kArn) + "|x"));
  EXPECT_FALSE(DecodeShardIterator("not-an-arn|7"));
}

TEST(ShardsTest, EventIdsNameStreamAndSequence) {
  StreamSpec stream;
  stream.id = 3;
  EXPECT_EQ(EventId(stream, 255), "000000000000000300000000000000ff");
}

}  // namespace
}  // namespace ddbd::streams
