// Runner over a real database and a recording handler: batching by size and by the clock's
// window, Lambda's event shape, bisection and retry limits with the on-failure record,
// partial batch responses, filtering, lanes keeping each key's order, and the checkpoint
// surviving a stop.
#include "triggers/runner.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <thread>

#include "streams/records_part.h"
#include "tests/testing/assertions.h"
#include "tests/testing/temp_db.h"

namespace ddbd::triggers {
namespace {

using ddbd::testing::TempDb;

struct Received {
  std::string pk;
  std::string sequence;
  int serial = 0;  // the item's "n": the order of the writes
};

// Records every batch it is sent; `answer` decides the reply (200 and no body by default).
class RecordingHandler : public HttpClient {
 public:
  std::function<Reply(const std::vector<Received>&)> answer;

  Result<Reply> Post(std::string_view, std::string_view body, std::chrono::milliseconds,
                     const std::atomic<bool>&) override {
    simdjson::dom::parser parser;
    simdjson::dom::element event = parser.parse(body.data(), body.size());
    std::vector<Received> batch;
    for (simdjson::dom::element record : event["Records"]) {
      batch.push_back(
          {std::string(std::string_view(record["dynamodb"]["Keys"]["pk"]["S"])),
           std::string(std::string_view(record["dynamodb"]["SequenceNumber"])),
           std::stoi(std::string(std::string_view(record["dynamodb"]["NewImage"]["n"]["S"])))});
    }
    std::lock_guard lock(mutex_);
    if (first_event_.empty()) first_event_ = std::string(body);
    batches_.push_back(batch);
    return answer ? answer(batch) : Reply{200, false, ""};
  }

  std::vector<std::vector<std::string>> Batches() {
    std::lock_guard lock(mutex_);
    std::vector<std::vector<std::string>> out;
    for (const auto& batch : batches_) {
      out.emplace_back();
      for (const auto& record : batch) out.back().push_back(record.pk);
    }
    return out;
  }
  // Every key delivered, in delivery order.
  std::vector<std::string> Keys() {
    std::vector<std::string> keys;
    for (const auto& batch : Batches()) keys.insert(keys.end(), batch.begin(), batch.end());
    return keys;
  }
  // Each key's writes, in delivery order.
  std::map<std::string, std::vector<int>> SerialsByKey() {
    std::lock_guard lock(mutex_);
    std::map<std::string, std::vector<int>> out;
    for (const auto& batch : batches_) {
      for (const auto& record : batch) out[record.pk].push_back(record.serial);
    }
    return out;
  }
  std::string FirstEvent() {
    std::lock_guard lock(mutex_);
    return first_event_;
  }

 private:
  std::mutex mutex_;
  std::vector<std::vector<Received>> batches_;
  std::string first_event_;
};

// The lines of the file at `path` (an on-failure destination's), which is then removed.
std::vector<std::string> LinesOf(const std::filesystem::path& path) {
  std::vector<std::string> lines;
  {
    std::ifstream file(path);
    for (std::string line; std::getline(file, line);) lines.push_back(line);
  }
  std::filesystem::remove(path);
  return lines;
}

class RunnerTest : public ::testing::Test {
 protected:
  RunnerTest() {
    temp.db().SetClock(clock);
    temp.AddWritePart(&records_part);
    TableDef def;
    def.name = "Orders";
    def.region = "us-east-1";
    def.table_uuid = "uuid";
    def.partition_key = {"pk", KeyAttributeType::kS};
    def.attribute_definitions = {{"pk", KeyAttributeType::kS}};
    def.streams = {{701, StreamViewType::kNewAndOldImages, 1'700'000'000'000, true, std::nullopt}};
    auto created = temp.catalog().Create(def);
    EXPECT_TRUE(created.ok());
    table = *created;
  }

  void Write(const std::string& pk, const std::string& type = "Order") {
    Item item{{"pk", AttributeValue::String(pk)},
              {"type", AttributeValue::String(type)},
              {"n", AttributeValue::String(std::to_string(serial++))}};
    std::vector<storage::ItemWrite> writes;
    writes.push_back(
        storage::Replacement(*table, {AttributeValue::String(pk), std::nullopt}, std::move(item)));
    ASSERT_TRUE(temp.db().WriteItems(std::move(writes)).ok());
  }

  TriggerDefinition Definition() {
    TriggerDefinition d;
    d.name = "t1";
    d.table_name = "Orders";
    d.url = "http://127.0.0.1:1/";
    d.starting_position = StartingPosition::kTrimHorizon;
    return d;
  }

  std::unique_ptr<Runner> Start(TriggerDefinition d) {
    auto runner = std::make_unique<Runner>(
        Runner::Context{temp.db(), temp.catalog(), clock, &handler}, std::move(d));
    runner->Start();
    return runner;
  }

  // Waits (up to 10 s) until `done` holds.
  static bool Eventually(const std::function<bool()>& done) {
    for (int i = 0; i < 500; ++i) {
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return done();
  }

  int serial = 0;
  ManualClock clock{1'700'000'000'000};
  streams::RecordsPart records_part;
  TempDb temp;
  std::shared_ptr<const TableDef> table;
  RecordingHandler handler;
};

TEST_F(RunnerTest, BatchesBySizeInOrderWithLambdasEventShape) {
  for (std::string pk : {"a", "b", "c", "d", "e"}) Write(pk);
  TriggerDefinition d = Definition();
  d.batch_size = 2;
  auto runner = Start(d);
  ASSERT_TRUE(Eventually([&] { return handler.Keys().size() == 5; }));
  EXPECT_EQ(handler.Batches(),
            (std::vector<std::vector<std::string>>{{"a", "b"}, {"c", "d"}, {"e"}}));
  simdjson::dom::parser parser;
  const std::string event = handler.FirstEvent();
  simdjson::dom::element record = parser.parse(event)["Records"].at(0);
  EXPECT_EQ(std::string_view(record["eventName"]), "INSERT");
  EXPECT_EQ(std::string_view(record["eventVersion"]), "1.1");
  EXPECT_EQ(std::string_view(record["eventSource"]), "aws:dynamodb");
  EXPECT_EQ(std::string_view(record["awsRegion"]), "us-east-1");
  EXPECT_EQ(std::string_view(record["eventSourceARN"]), table->StreamArn(table->streams[0]));
  EXPECT_EQ(int64_t(record["dynamodb"]["ApproximateCreationDateTime"]), 1'700'000'000);
  EXPECT_EQ(std::string_view(record["dynamodb"]["StreamViewType"]), "NEW_AND_OLD_IMAGES");
  EXPECT_EQ(std::string_view(record["dynamodb"]["NewImage"]["type"]["S"]), "Order");
  EXPECT_TRUE(record["userIdentity"].error() == simdjson::NO_SUCH_FIELD);
  runner->Stop();
  TriggerStatistics s = runner->Statistics();
  EXPECT_EQ(s.batches_delivered, 3u);
  EXPECT_EQ(s.records_delivered, 5u);
  EXPECT_EQ(s.last_processing_result, "OK");
}

TEST_F(RunnerTest, AWindowOfLargeItemsEndsAtItsBytesBound) {
  const std::string payload(100'000, 'x');
  for (int i = 0; i < 40; ++i) Write("big" + std::to_string(i), payload);
  auto runner = Start(Definition());  // BatchSize 100
  ASSERT_TRUE(Eventually([&] { return handler.Keys().size() == 40; }));
  runner->Stop();
  // 3 MB of items: the window ends with the record that reaches it, the 32nd of ~100 KB.
  std::vector<size_t> sizes;
  for (const auto& batch : handler.Batches()) sizes.push_back(batch.size());
  EXPECT_EQ(sizes, (std::vector<size_t>{32, 8}));
}

TEST_F(RunnerTest, TheBatchingWindowFollowsTheServiceClock) {
  TriggerDefinition d = Definition();
  d.batching_window_seconds = 10;
  auto runner = Start(d);
  Write("a");
  Write("b");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_TRUE(handler.Batches().empty());  // the clock has not moved: the window is open
  clock.Advance(10'000);
  ASSERT_TRUE(Eventually([&] { return handler.Keys().size() == 2; }));
  EXPECT_EQ(handler.Batches(), (std::vector<std::vector<std::string>>{{"a", "b"}}));
}

TEST_F(RunnerTest, BisectionIsolatesAFailingRecordAndRetriesEndAtTheLimit) {
  const std::filesystem::path failures = temp.path().string() + "-failed.jsonl";
  for (std::string pk : {"a", "b", "poison", "d"}) Write(pk);
  handler.answer = [](const std::vector<Received>& batch) {
    for (const auto& record : batch) {
      if (record.pk == "poison") return HttpClient::Reply{500, false, "boom"};
    }
    return HttpClient::Reply{200, false, ""};
  };
  TriggerDefinition d = Definition();
  d.bisect_batch_on_function_error = true;
  d.maximum_retry_attempts = 1;
  d.on_failure = "file://" + failures.string();
  auto runner = Start(d);
  ASSERT_TRUE(Eventually(
      [&] { return runner->Statistics().records_discarded == 1 && handler.Keys().back() == "d"; }));
  runner->Stop();
  // a b poison d → a b | poison d → poison → (retry) poison → given up → d
  EXPECT_EQ(
      handler.Batches(),
      (std::vector<std::vector<std::string>>{
          {"a", "b", "poison", "d"}, {"a", "b"}, {"poison", "d"}, {"poison"}, {"poison"}, {"d"}}));
  const std::vector<std::string> lines = LinesOf(failures);
  ASSERT_EQ(lines.size(), 1u);
  simdjson::dom::parser parser;
  simdjson::dom::element failure = parser.parse(lines[0]);
  EXPECT_EQ(std::string_view(failure["requestContext"]["condition"]), "RetryAttemptsExhausted");
  EXPECT_EQ(int64_t(failure["requestContext"]["approximateInvokeCount"]), 4);
  EXPECT_EQ(std::string_view(failure["responseContext"]["functionError"]), "Unhandled");
  EXPECT_EQ(int64_t(failure["DDBStreamBatchInfo"]["batchSize"]), 1);
  EXPECT_EQ(std::string_view(failure["DDBStreamBatchInfo"]["streamArn"]),
            table->StreamArn(table->streams[0]));
}

TEST_F(RunnerTest, RecordsPastTheirMaximumAgeAreGivenUpByTheServiceClock) {
  const std::filesystem::path failures = temp.path().string() + "-aged.jsonl";
  Write("a");
  Write("b");
  handler.answer = [](const std::vector<Received>&) { return HttpClient::Reply{500, false, ""}; };
  TriggerDefinition d = Definition();
  d.maximum_record_age_seconds = 60;
  d.on_failure = "file://" + failures.string();
  auto runner = Start(d);
  ASSERT_TRUE(Eventually([&] { return runner->Statistics().batches_retried >= 2; }));
  EXPECT_EQ(runner->Statistics().records_discarded, 0u);  // retried while young
  clock.Advance(61'000);
  ASSERT_TRUE(Eventually([&] { return runner->Statistics().records_discarded == 2; }));
  runner->Stop();
  const std::vector<std::string> lines = LinesOf(failures);
  ASSERT_EQ(lines.size(), 1u);
  simdjson::dom::parser parser;
  simdjson::dom::element failure = parser.parse(lines[0]);
  EXPECT_EQ(std::string_view(failure["requestContext"]["condition"]), "RecordAgeExceeded");
  EXPECT_EQ(int64_t(failure["DDBStreamBatchInfo"]["batchSize"]), 2);
  EXPECT_EQ(std::string_view(failure["responseContext"]["functionError"]), "Unhandled");
}

TEST_F(RunnerTest, APartialBatchResponseRetriesFromTheFirstFailedRecord) {
  for (std::string pk : {"a", "b", "c", "d"}) Write(pk);
  int calls = 0;
  handler.answer = [&](const std::vector<Received>& batch) {
    if (calls++ > 0) return HttpClient::Reply{200, false, "{\"batchItemFailures\":[]}"};
    return HttpClient::Reply{200, false,
                             "{\"batchItemFailures\":[{\"itemIdentifier\":\"" + batch[2].sequence +
                                 "\"},{\"itemIdentifier\":\"" + batch[3].sequence + "\"}]}"};
  };
  TriggerDefinition d = Definition();
  d.report_batch_item_failures = true;
  auto runner = Start(d);
  ASSERT_TRUE(Eventually([&] { return handler.Batches().size() == 2; }));
  runner->Stop();
  EXPECT_EQ(handler.Batches(),
            (std::vector<std::vector<std::string>>{{"a", "b", "c", "d"}, {"c", "d"}}));
  EXPECT_EQ(runner->Statistics().batches_retried, 1u);
  EXPECT_EQ(runner->Statistics().records_delivered, 4u);
}

TEST_F(RunnerTest, FilteredRecordsAreDroppedAndTheirPositionsConsumed) {
  Write("u1", "User");
  Write("o1", "Order");
  Write("u2", "User");
  TriggerDefinition d = Definition();
  d.filter_criteria =
      *FilterCriteria::Parse({R"({"dynamodb":{"NewImage":{"type":{"S":["Order"]}}}})"});
  auto runner = Start(d);
  ASSERT_TRUE(Eventually([&] { return runner->Statistics().records_filtered == 2; }));
  runner->Stop();
  EXPECT_EQ(handler.Batches(), (std::vector<std::vector<std::string>>{{"o1"}}));
}

TEST_F(RunnerTest, LanesKeepEachKeysOrder) {
  for (int round = 0; round < 5; ++round) {
    for (std::string pk : {"k1", "k2", "k3", "k4", "k5", "k6"}) Write(pk);
  }
  TriggerDefinition d = Definition();
  d.batch_size = 2;
  d.parallelization_factor = 4;
  auto runner = Start(d);
  ASSERT_TRUE(Eventually([&] { return handler.Keys().size() == 30; }));
  runner->Stop();
  const auto serials = handler.SerialsByKey();
  ASSERT_EQ(serials.size(), 6u);
  for (const auto& [key, order] : serials) {
    ASSERT_EQ(order.size(), 5u) << key;
    EXPECT_TRUE(std::is_sorted(order.begin(), order.end())) << key;
  }
  EXPECT_GT(handler.Batches().size(), 15u);  // lanes of at most 2 records
  ASSERT_OK_AND_ASSIGN(auto stored, temp.db().GetJob(Runner::kCheckpointKind, "t1"));
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->substr(0, 4), "701 ");
}

TEST_F(RunnerTest, TheCheckpointSurvivesAStop) {
  Write("a");
  Write("b");
  auto runner = Start(Definition());
  ASSERT_TRUE(Eventually([&] { return handler.Keys().size() == 2; }));
  runner->Stop();
  runner.reset();
  Write("c");
  temp.Reopen();
  auto again = std::make_unique<Runner>(Runner::Context{temp.db(), temp.catalog(), clock, &handler},
                                        Definition());
  again->Start();
  ASSERT_TRUE(Eventually([&] { return handler.Keys().size() == 3; }));
  again->Stop();
  EXPECT_EQ(handler.Batches(), (std::vector<std::vector<std::string>>{{"a", "b"}, {"c"}}));
}

TEST_F(RunnerTest, AfterAStopOnlyTheLaneThatHadNotAcknowledgedDeliversAgain) {
  // Two keys in different lanes of two.
  std::string steady = "k0", stuck;
  const auto lane = [](const std::string& pk) {
    return Runner::LaneOf(Item{{"pk", AttributeValue::String(pk)}}, 2);
  };
  for (int i = 1; stuck.empty(); ++i) {
    if (lane("k" + std::to_string(i)) != lane(steady)) stuck = "k" + std::to_string(i);
  }
  Write(steady);
  Write(stuck);
  Write(steady);
  std::atomic<bool> failing{true};
  handler.answer = [&](const std::vector<Received>& batch) {
    const bool refused = failing && batch[0].pk == stuck;
    return HttpClient::Reply{refused ? 500u : 200u, false, ""};
  };
  TriggerDefinition d = Definition();
  d.batch_size = 2;  // a window of four records holds all three
  d.parallelization_factor = 2;
  auto runner = Start(d);
  // The steady lane finishes; the stuck one keeps failing, so the window never completes.
  ASSERT_TRUE(Eventually([&] {
    return runner->Statistics().records_delivered == 2 && runner->Statistics().batches_failed >= 2;
  }));
  runner->Stop();
  failing = false;
  const size_t before = handler.Batches().size();
  auto again = Start(d);
  ASSERT_TRUE(Eventually([&] { return again->Statistics().records_delivered == 1; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  again->Stop();
  const auto batches = handler.Batches();
  // After the restart: only the stuck key's record, not the steady lane's again.
  EXPECT_EQ(std::vector<std::vector<std::string>>(batches.begin() + before, batches.end()),
            (std::vector<std::vector<std::string>>{{stuck}}));
}

TEST_F(RunnerTest, LatestStartsAfterTheLastRecordWhenCreated) {
  Write("old");
  TriggerDefinition d = Definition();
  d.starting_position = StartingPosition::kLatest;
  d.created_after_sequence = temp.db().LastStreamSequence();
  auto runner = Start(d);
  Write("new");
  ASSERT_TRUE(Eventually([&] { return !handler.Keys().empty(); }));
  runner->Stop();
  EXPECT_EQ(handler.Keys(), (std::vector<std::string>{"new"}));
}

}  // namespace
}  // namespace ddbd::triggers
