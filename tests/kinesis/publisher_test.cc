// CapturePart and Publisher together over a real database and a fake Kinesis: each change of
// a table with an enabled destination is captured in its write's batch (stream or not), and
// delivered in order, one record per item in a batch, failed records sent again before
// anything later, and the checkpoint (the records' trim point) durable across a reopen.
#include "kinesis/publisher.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <thread>

#include "kinesis/capture_part.h"
#include "tests/testing/assertions.h"
#include "tests/testing/temp_db.h"
#include "wire/base64.h"

namespace ddbd::kinesis {
namespace {

using ddbd::testing::TempDb;

constexpr uint64_t kRecordsId = 900;

// Stores what it is sent; the outcomes of the next calls can be scripted.
class FakeKinesis : public KinesisTransport {
 public:
  struct Stored {
    std::string partition_key;
    std::string event_name;
    std::string pk;
  };
  // Each scripted call fails these record positions (or the whole call, with status 500).
  std::deque<std::vector<size_t>> failing;
  std::deque<unsigned> statuses;
  std::vector<Stored> stored;
  std::vector<size_t> batch_sizes;

  Result<KinesisReply> Call(std::string_view operation, std::string_view body) override {
    EXPECT_EQ(operation, "PutRecords");
    unsigned status = 200;
    if (!statuses.empty()) {
      status = statuses.front();
      statuses.pop_front();
    }
    if (status != 200) return KinesisReply{status, R"({"__type":"InternalFailure"})"};
    std::vector<size_t> fail;
    if (!failing.empty()) {
      fail = failing.front();
      failing.pop_front();
    }
    simdjson::dom::parser parser;
    simdjson::dom::element request = parser.parse(body.data(), body.size());
    EXPECT_EQ(std::string_view(request["StreamName"]), "orders");
    std::string reply =
        R"({"FailedRecordCount":)" + std::to_string(fail.size()) + R"(,"Records":[)";
    size_t position = 0;
    batch_sizes.push_back(simdjson::dom::array(request["Records"]).size());
    for (simdjson::dom::element record : request["Records"]) {
      if (position) reply += ",";
      if (std::find(fail.begin(), fail.end(), position++) != fail.end()) {
        reply += R"({"ErrorCode":"ProvisionedThroughputExceededException","ErrorMessage":"x"})";
        continue;
      }
      reply += R"({"SequenceNumber":"1","ShardId":"shardId-0"})";
      auto data = wire::Base64Decode(std::string_view(record["Data"]));
      simdjson::dom::parser inner;
      simdjson::dom::element change = inner.parse(data.value());
      stored.push_back({std::string(std::string_view(record["PartitionKey"])),
                        std::string(std::string_view(change["eventName"])),
                        std::string(std::string_view(change["dynamodb"]["Keys"]["pk"]["S"]))});
    }
    return KinesisReply{200, reply + "]}"};
  }
  std::string Describe() const override { return "fake"; }
};

class PublisherTest : public ::testing::Test {
 protected:
  PublisherTest() {
    temp.db().SetClock(clock);
    temp.AddWritePart(&part);
  }

  std::shared_ptr<const TableDef> CreateTable(bool enabled) {
    TableDef table;
    table.name = "Orders";
    table.region = "us-east-1";
    table.table_uuid = "uuid";
    table.partition_key = {"pk", KeyAttributeType::kS};
    table.attribute_definitions = {{"pk", KeyAttributeType::kS}};
    table.kinesis_destinations = {{"arn:aws:kinesis:us-east-1:000000000000:stream/orders",
                                   kRecordsId, enabled, KinesisChange::kEnable, 0, std::nullopt}};
    auto created = temp.catalog().Create(table);
    EXPECT_TRUE(created.ok());
    return *created;
  }

  void Write(const TableDef& table, std::string pk, std::optional<std::string> value) {
    std::optional<Item> item;
    if (value) {
      item = Item{{"pk", AttributeValue::String(pk)}, {"v", AttributeValue::String(*value)}};
    }
    std::vector<storage::ItemWrite> writes;
    writes.push_back(
        storage::Replacement(table, {AttributeValue::String(pk), std::nullopt}, std::move(item)));
    ASSERT_TRUE(temp.db().WriteItems(std::move(writes)).ok());
  }

  Result<uint64_t> Deliver(FakeKinesis& kinesis) {
    Publisher publisher(temp.db(), temp.catalog(), clock, executor, &kinesis);
    return publisher.DeliverOnce();
  }

  int serial = 0;  // makes each write change its item
  ManualClock clock{1'700'000'000'000};
  CapturePart part;
  Executor executor{1};
  TempDb temp;
};

TEST_F(PublisherTest, CapturesEveryChangeWithBothImagesWithoutAStream) {
  auto table = CreateTable(true);
  Write(*table, "a", "1");
  Write(*table, "a", "1");  // unchanged: nothing
  Write(*table, "a", "2");
  Write(*table, "a", std::nullopt);
  ASSERT_OK_AND_ASSIGN(auto records, temp.db().ReadStream(kRecordsId, 0, 10));
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].event, storage::StreamEvent::kInsert);
  EXPECT_FALSE(records[0].old_image);
  EXPECT_EQ(records[1].event, storage::StreamEvent::kModify);
  EXPECT_EQ(records[1].old_image->at("v").scalar(), "1");
  EXPECT_EQ(records[1].new_image->at("v").scalar(), "2");
  EXPECT_EQ(records[2].event, storage::StreamEvent::kRemove);
  EXPECT_FALSE(records[2].new_image);
  EXPECT_EQ(records[2].time_ms, clock.NowMs());
}

TEST_F(PublisherTest, NothingIsCapturedForADisabledDestination) {
  auto table = CreateTable(false);
  Write(*table, "a", "1");
  ASSERT_OK_AND_ASSIGN(auto records, temp.db().ReadStream(kRecordsId, 0, 10));
  EXPECT_TRUE(records.empty());
}

TEST_F(PublisherTest, DeliversInOrderOneRecordPerItemInABatch) {
  auto table = CreateTable(true);
  for (std::string pk : {"a", "b", "a", "c", "b"})
    Write(*table, pk, pk + "x" + std::to_string(serial++));
  FakeKinesis kinesis;
  ASSERT_OK_AND_ASSIGN(uint64_t delivered, Deliver(kinesis));
  EXPECT_EQ(delivered, 5u);
  EXPECT_EQ(kinesis.batch_sizes, (std::vector<size_t>{2, 3}));  // a b | a c b
  std::vector<std::string> order;
  for (const auto& stored : kinesis.stored) order.push_back(stored.pk + stored.event_name);
  EXPECT_EQ(order,
            (std::vector<std::string>{"aINSERT", "bINSERT", "aMODIFY", "cINSERT", "bMODIFY"}));
  EXPECT_EQ(kinesis.stored[0].partition_key, kinesis.stored[2].partition_key);
  ASSERT_OK_AND_ASSIGN(auto left, temp.db().ReadStream(kRecordsId, 0, 10));
  EXPECT_TRUE(left.empty());  // delivered records are removed: the checkpoint
}

TEST_F(PublisherTest, FailedRecordsAreSentAgainBeforeAnythingLater) {
  auto table = CreateTable(true);
  for (std::string pk : {"a", "b", "c", "a"}) Write(*table, pk, pk + std::to_string(serial++));
  FakeKinesis kinesis;
  kinesis.failing = {{1}};  // b fails in the first batch (a b c)
  Publisher publisher(temp.db(), temp.catalog(), clock, executor, &kinesis);
  ASSERT_OK_AND_ASSIGN(uint64_t delivered, publisher.DeliverOnce());
  EXPECT_EQ(delivered, 2u);  // a, c; b waits for its back-off
  ASSERT_OK_AND_ASSIGN(auto kept, temp.db().ReadStream(kRecordsId, 0, 10));
  EXPECT_EQ(kept.size(), 4u);  // nothing is removed before the whole batch is stored
  for (int i = 0; i < 100 && kinesis.stored.size() < 4; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_TRUE(publisher.DeliverOnce().ok());
  }
  std::vector<std::string> order;
  for (const auto& stored : kinesis.stored) order.push_back(stored.pk);
  EXPECT_EQ(order, (std::vector<std::string>{"a", "c", "b", "a"}));
  EXPECT_EQ(kinesis.batch_sizes, (std::vector<size_t>{3, 1, 1}));
}

TEST_F(PublisherTest, TheCheckpointSurvivesAReopenAndAFailedCall) {
  auto table = CreateTable(true);
  Write(*table, "a", "1");
  FakeKinesis kinesis;
  ASSERT_OK_AND_ASSIGN(uint64_t first, Deliver(kinesis));
  EXPECT_EQ(first, 1u);
  Write(*table, "a", "2");
  FakeKinesis down;
  down.statuses = {500};
  ASSERT_OK_AND_ASSIGN(uint64_t none, Deliver(down));  // logged and retried later
  EXPECT_EQ(none, 0u);
  temp.Reopen();
  table = temp.catalog().FindById(table->id);
  FakeKinesis after;
  ASSERT_OK_AND_ASSIGN(uint64_t delivered, Deliver(after));
  EXPECT_EQ(delivered, 1u);
  ASSERT_EQ(after.stored.size(), 1u);
  EXPECT_EQ(after.stored[0].event_name, "MODIFY");
}

}  // namespace
}  // namespace ddbd::kinesis
