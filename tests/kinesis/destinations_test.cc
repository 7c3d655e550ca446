// The Kinesis destination state machine and DynamoDB's refusals.
#include "kinesis/destinations.h"

#include <gtest/gtest.h>

namespace ddbd::kinesis {
namespace {

constexpr std::string_view kArn = "arn:aws:kinesis:us-east-1:000000000000:stream/orders";
constexpr std::string_view kOther = "arn:aws:kinesis:us-east-1:000000000000:stream/other";

TableDef Table() {
  TableDef table;
  table.name = "Orders";
  table.table_uuid = "7d9b1c2e-0000-4000-8000-000000000001";
  return table;
}

std::string_view StatusAt(const TableDef& table, size_t i, Moment at) {
  return DestinationStatusName(StatusOf(table.kinesis_destinations[i], at.now_ms, at.delay_ms));
}

TEST(DestinationsTest, EnableIsImmediateWithoutDelayAndPhasedWithOne) {
  TableDef table = Table();
  ASSERT_TRUE(EnableDestination(table, kArn, std::nullopt, {1000, 0}, 7).ok());
  EXPECT_EQ(StatusAt(table, 0, {1000, 0}), "ACTIVE");
  EXPECT_EQ(table.kinesis_destinations[0].records_id, 7u);
  EXPECT_FALSE(table.kinesis_destinations[0].precision.has_value());

  TableDef delayed = Table();
  ASSERT_TRUE(EnableDestination(delayed, kArn, std::nullopt, {1000, 500}, 7).ok());
  EXPECT_EQ(StatusAt(delayed, 0, {1499, 500}), "ENABLING");
  EXPECT_EQ(StatusAt(delayed, 0, {1500, 500}), "ACTIVE");
}

TEST(DestinationsTest, OneLiveDestinationPerTable) {
  TableDef table = Table();
  ASSERT_TRUE(EnableDestination(table, kArn, std::nullopt, {1000, 0}, 7).ok());
  for (std::string_view arn : {kArn, kOther}) {
    Status again = EnableDestination(table, arn, std::nullopt, {2000, 0}, 8);
    ASSERT_FALSE(again.ok());
    EXPECT_EQ(again.error().code(), ErrorCode::kValidation);
    EXPECT_EQ(again.error().message(),
              "Table is not in a valid state to enable Kinesis Streaming Destination: "
              "EnableKinesisStreamingDestination must be DISABLED or ENABLE_FAILED to perform "
              "ENABLE operation.");
  }
  // DISABLING still counts as live.
  TableDef delayed = Table();
  ASSERT_TRUE(EnableDestination(delayed, kArn, std::nullopt, {0, 100}, 7).ok());
  ASSERT_TRUE(DisableDestination(delayed, kArn, {200, 100}).ok());
  EXPECT_EQ(StatusAt(delayed, 0, {250, 100}), "DISABLING");
  EXPECT_FALSE(EnableDestination(delayed, kOther, std::nullopt, {250, 100}, 8).ok());
  EXPECT_TRUE(EnableDestination(delayed, kOther, std::nullopt, {300, 100}, 8).ok());
}

TEST(DestinationsTest, ReEnablingReusesTheDisabledEntryAndResetsPrecision) {
  TableDef table = Table();
  ASSERT_TRUE(EnableDestination(table, kArn, KinesisPrecision::kMicrosecond, {0, 0}, 7).ok());
  ASSERT_TRUE(DisableDestination(table, kArn, {1, 0}).ok());
  EXPECT_EQ(StatusAt(table, 0, {1, 0}), "DISABLED");
  EXPECT_EQ(table.EnabledKinesisDestination(), nullptr);
  ASSERT_TRUE(EnableDestination(table, kOther, std::nullopt, {2, 0}, 8).ok());
  ASSERT_TRUE(DisableDestination(table, kOther, {3, 0}).ok());
  ASSERT_TRUE(EnableDestination(table, kArn, std::nullopt, {4, 0}, 9).ok());
  ASSERT_EQ(table.kinesis_destinations.size(), 2u);
  const KinesisDestination& last = table.kinesis_destinations.back();  // most recent last
  EXPECT_EQ(last.stream_arn, kArn);
  EXPECT_EQ(last.records_id, 7u);
  EXPECT_FALSE(last.precision.has_value());
  EXPECT_EQ(table.EnabledKinesisDestination(), &last);
}

TEST(DestinationsTest, DisableNeedsAnActiveEntry) {
  const std::string refused =
      "Table is not in a valid state to enable Kinesis Streaming Destination: "
      "KinesisStreamingDestination must be ACTIVE to perform DISABLE operation.";
  TableDef table = Table();
  Status never = DisableDestination(table, kArn, {0, 0});
  ASSERT_FALSE(never.ok());
  EXPECT_EQ(never.error().message(), refused);
  ASSERT_TRUE(EnableDestination(table, kArn, std::nullopt, {0, 100}, 7).ok());
  Status enabling = DisableDestination(table, kArn, {50, 100});
  ASSERT_FALSE(enabling.ok());
  EXPECT_EQ(enabling.error().message(), refused);
  ASSERT_TRUE(DisableDestination(table, kArn, {100, 100}).ok());
  EXPECT_TRUE(DisableDestination(table, kArn, {150, 100}).ok());   // DISABLING: 200 again
  EXPECT_FALSE(DisableDestination(table, kArn, {200, 100}).ok());  // DISABLED
}

TEST(DestinationsTest, UpdateRules) {
  TableDef table = Table();
  Status missing = UpdateDestination(table, kArn, KinesisPrecision::kMicrosecond, {0, 0});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message(),
            "Table is not in a valid state to enable Kinesis Streaming Destination: No streaming "
            "destination with streamArn: " +
                std::string(kArn) + " found for table with tableName: Orders");
  ASSERT_TRUE(EnableDestination(table, kArn, std::nullopt, {0, 100}, 7).ok());
  Status enabling = UpdateDestination(table, kArn, KinesisPrecision::kMicrosecond, {50, 100});
  ASSERT_FALSE(enabling.ok());
  EXPECT_EQ(enabling.error().message(),
            "Table is not in a valid state to enable Kinesis Streaming Destination: Kinesis "
            "streaming is not in ACTIVE state. Updates are only allowed in ACTIVE state. "
            "TableName: Orders");
  Status same = UpdateDestination(table, kArn, KinesisPrecision::kMillisecond, {100, 100});
  ASSERT_FALSE(same.ok());  // absent precision reads as MILLISECOND
  EXPECT_EQ(same.error().message(),
            "Invalid Request: Precision is already set to the desired value of MILLISECOND for "
            "tableId: 7d9b1c2e-0000-4000-8000-000000000001, kdsArn: " +
                std::string(kArn));
  ASSERT_TRUE(UpdateDestination(table, kArn, KinesisPrecision::kMicrosecond, {100, 100}).ok());
  EXPECT_EQ(StatusAt(table, 0, {150, 100}), "UPDATING");
  EXPECT_EQ(StatusAt(table, 0, {200, 100}), "ACTIVE");
  EXPECT_EQ(table.kinesis_destinations[0].precision, KinesisPrecision::kMicrosecond);
  EXPECT_TRUE(table.kinesis_destinations[0].enabled);  // captured throughout
}

TEST(DestinationsTest, StreamNameOfAnArn) {
  EXPECT_EQ(StreamNameOf(kArn), "orders");
  EXPECT_EQ(StreamNameOf("arn:aws:kinesis:us-east-1:000000000000:stream/s/consumer/c:1"), "s");
  EXPECT_EQ(StreamNameOf("arn:aws:firehose:us-east-1:000000000000:deliverystream/x"), "");
  EXPECT_EQ(StreamNameOf("not-an-arn"), "");
}

}  // namespace
}  // namespace ddbd::kinesis
