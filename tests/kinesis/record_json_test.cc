// DynamoDB's Kinesis records, and PutRecords requests and replies.
#include "kinesis/record_json.h"

#include <gtest/gtest.h>

#include <regex>

#include "kinesis/put_records.h"

namespace ddbd::kinesis {
namespace {

TableDef Table() {
  TableDef table;
  table.name = "Orders";
  table.region = "eu-west-1";
  table.table_uuid = "7d9b1c2e-0000-4000-8000-000000000001";
  table.partition_key = {"pk", KeyAttributeType::kS};
  return table;
}

storage::StreamRecord Change(storage::StreamEvent event) {
  storage::StreamRecord record;
  record.sequence = 42;
  record.event = event;
  record.time_ms = 1700000000123;
  record.keys.emplace("pk", AttributeValue::String("a"));
  record.size_bytes = 20;
  return record;
}

TEST(RecordJsonTest, ModifyInMilliseconds) {
  storage::StreamRecord change = Change(storage::StreamEvent::kModify);
  change.new_image = Item{{"pk", AttributeValue::String("a")}, {"n", AttributeValue::String("2")}};
  change.old_image = Item{{"pk", AttributeValue::String("a")}, {"n", AttributeValue::String("1")}};
  OutgoingRecord record = RenderRecord(Table(), 9, change, KinesisPrecision::kMillisecond);
  EXPECT_EQ(record.sequence, 42u);
  EXPECT_EQ(record.data,
            R"({"awsRegion":"eu-west-1","eventID":")" + EventIdOf(Table().table_uuid, 9, 42) +
                R"(","eventName":"MODIFY","userIdentity":null,"recordFormat":"application/json",)"
                R"("tableName":"Orders","dynamodb":{"ApproximateCreationDateTime":1700000000123,)"
                R"("Keys":{"pk":{"S":"a"}},"NewImage":{"n":{"S":"2"},"pk":{"S":"a"}},)"
                R"("OldImage":{"n":{"S":"1"},"pk":{"S":"a"}},"SizeBytes":20},)"
                R"("eventSource":"aws:dynamodb"})");
}

TEST(RecordJsonTest, TtlRemoveInMicroseconds) {
  storage::StreamRecord change = Change(storage::StreamEvent::kRemove);
  change.by_ttl = true;
  change.old_image = Item{{"pk", AttributeValue::String("a")}};
  OutgoingRecord record = RenderRecord(Table(), 9, change, KinesisPrecision::kMicrosecond);
  EXPECT_NE(record.data.find(R"("eventName":"REMOVE","userIdentity":{"principalId":)"
                             R"("dynamodb.amazonaws.com","type":"Service"})"),
            std::string::npos);
  EXPECT_NE(record.data.find(R"("ApproximateCreationDateTime":1700000000123000,)"),
            std::string::npos);
  EXPECT_NE(record.data.find(R"("SizeBytes":20,"ApproximateCreationDateTimePrecision":)"
                             R"("MICROSECOND"})"),
            std::string::npos);
  EXPECT_EQ(record.data.find("NewImage"), std::string::npos);
}

TEST(RecordJsonTest, PartitionKeyIsStablePerItem) {
  const Item a{{"pk", AttributeValue::String("a")}, {"sk", AttributeValue::String("1")}};
  const Item b{{"pk", AttributeValue::String("a")}, {"sk", AttributeValue::String("2")}};
  EXPECT_EQ(PartitionKeyOf(a), PartitionKeyOf(a));
  EXPECT_NE(PartitionKeyOf(a), PartitionKeyOf(b));
  EXPECT_TRUE(std::regex_match(PartitionKeyOf(a), std::regex("[0-9A-F]{32}")));
}

TEST(RecordJsonTest, EventIdIsAUuidOfTheRecord) {
  const std::string id = EventIdOf("t", 1, 2);
  EXPECT_TRUE(
      std::regex_match(id, std::regex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-"
                                      "[0-9a-f]{12}")));
  EXPECT_EQ(id, EventIdOf("t", 1, 2));
  EXPECT_NE(id, EventIdOf("t", 1, 3));
}

TEST(PutRecordsTest, EncodesStreamNameAndBase64Data) {
  const OutgoingRecord records[] = {{1, "AB", "hi"}, {2, "CD", "{}"}};
  EXPECT_EQ(EncodePutRecords("s", records),
            R"({"StreamName":"s","Records":[{"Data":"aGk=","PartitionKey":"AB"},)"
            R"({"Data":"e30=","PartitionKey":"CD"}]})");
}

TEST(PutRecordsTest, DecodesEachRecordsOutcome) {
  KinesisReply reply{
      200, R"({"FailedRecordCount":1,"Records":[{"SequenceNumber":"1","ShardId":"s"},)"
           R"({"ErrorCode":"ProvisionedThroughputExceededException","ErrorMessage":"x"}]})"};
  auto outcomes = DecodePutRecordsReply(reply, 2);
  ASSERT_TRUE(outcomes.ok());
  EXPECT_EQ(*outcomes, (std::vector<std::string>{"", "ProvisionedThroughputExceededException"}));
  EXPECT_FALSE(DecodePutRecordsReply(reply, 3).ok());
  auto refused = DecodePutRecordsReply(
      {400, R"({"__type":"ResourceNotFoundException","message":"Stream s not found"})"}, 2);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message().find("ResourceNotFoundException: Stream s not found"),
            std::string::npos);
}

}  // namespace
}  // namespace ddbd::kinesis
