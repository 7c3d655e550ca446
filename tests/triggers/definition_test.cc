// Trigger definitions: Lambda's defaults and bounds, the target rule, and the stored form
// reading back as it was.
#include "triggers/definition.h"

#include <gtest/gtest.h>

#include "tests/testing/assertions.h"

namespace ddbd::triggers {
namespace {

Result<TriggerDefinition> Parse(std::string_view json, bool stored = false) {
  static simdjson::dom::parser parser;
  wire::JsonObject object = parser.parse(json.data(), json.size()).get_object().value();
  return ParseDefinition("orders-indexer", object, stored);
}

TEST(TriggerDefinitionTest, LambdasDefaults) {
  ASSERT_OK_AND_ASSIGN(auto d, Parse(R"({"TableName":"Orders","Url":"http://127.0.0.1:9/",
                                         "StartingPosition":"LATEST"})"));
  EXPECT_EQ(d.name_space, "default");
  EXPECT_EQ(d.batch_size, 100);
  EXPECT_EQ(d.batching_window_seconds, 0);
  EXPECT_EQ(d.maximum_retry_attempts, -1);
  EXPECT_EQ(d.maximum_record_age_seconds, -1);
  EXPECT_EQ(d.parallelization_factor, 1);
  EXPECT_FALSE(d.bisect_batch_on_function_error);
  EXPECT_FALSE(d.report_batch_item_failures);
  EXPECT_TRUE(d.enabled);
  EXPECT_EQ(d.starting_position, StartingPosition::kLatest);
}

TEST(TriggerDefinitionTest, BoundsAreLambdas) {
  auto too_big = Parse(R"({"TableName":"Orders","Url":"http://h:1/","StartingPosition":"LATEST",
                            "BatchSize":10001,"ParallelizationFactor":11})");
  ASSERT_FALSE(too_big.ok());
  EXPECT_EQ(too_big.error().message(),
            "2 validation errors detected: Value '10001' at 'batchSize' failed to satisfy "
            "constraint: Member must have value less than or equal to 10000; Value '11' at "
            "'parallelizationFactor' failed to satisfy constraint: Member must have value less "
            "than or equal to 10");
  auto age = Parse(R"({"TableName":"Orders","Url":"http://h:1/","StartingPosition":"LATEST",
                       "MaximumRecordAgeInSeconds":30})");
  ASSERT_FALSE(age.ok());
  EXPECT_EQ(age.error().message(), "MaximumRecordAgeInSeconds must be -1 or between 60 and 604800");
  auto position = Parse(R"({"TableName":"Orders","Url":"http://h:1/"})");
  ASSERT_FALSE(position.ok());
  EXPECT_NE(position.error().message().find("'startingPosition' failed to satisfy constraint: "
                                            "Member must not be null"),
            std::string::npos);
  EXPECT_FALSE(
      Parse(R"({"TableName":"Orders","Url":"http://h:1/","StartingPosition":"AT_TIMESTAMP"})")
          .ok());
  EXPECT_FALSE(
      Parse(R"({"TableName":"Orders","Url":"http://h:1/","StartingPosition":"NOW"})").ok());
}

TEST(TriggerDefinitionTest, ExactlyOneTarget) {
  EXPECT_FALSE(Parse(R"({"TableName":"Orders","StartingPosition":"LATEST"})").ok());
  EXPECT_FALSE(Parse(R"({"TableName":"Orders","StartingPosition":"LATEST","Url":"http://h:1/",
                         "Command":"cat"})")
                   .ok());
  EXPECT_FALSE(
      Parse(R"({"TableName":"Orders","StartingPosition":"LATEST","Url":"https://h/"})").ok());
  auto unknown = Parse(R"({"TableName":"Orders","StartingPosition":"LATEST","Command":"cat",
                           "BatchSzie":5})");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message(), "Unknown member BatchSzie in a trigger's definition");
}

TEST(TriggerDefinitionTest, EventSourceArnNamesTheTable) {
  ASSERT_OK_AND_ASSIGN(auto d, Parse(R"({"EventSourceArn":
      "arn:aws:dynamodb:us-east-1:000000000000:table/Orders/stream/2026-12-07T00:00:00.000",
      "Command":"cat","StartingPosition":"TRIM_HORIZON"})"));
  EXPECT_EQ(d.table_name, "Orders");
}

TEST(TriggerDefinitionTest, TheStoredFormReadsBackAsItWas) {
  ASSERT_OK_AND_ASSIGN(auto d, Parse(R"({"TableName":"Orders","Command":"cat",
      "StartingPosition":"AT_TIMESTAMP","StartingPositionTimestamp":1700000000.5,
      "BatchSize":7,"MaximumBatchingWindowInSeconds":3,"MaximumRetryAttempts":2,
      "MaximumRecordAgeInSeconds":60,"BisectBatchOnFunctionError":true,
      "ParallelizationFactor":3,"FunctionResponseTypes":["ReportBatchItemFailures"],
      "FilterCriteria":{"Filters":[{"Pattern":"{\"eventName\":[\"INSERT\"]}"},
                                   {"Pattern":{"eventName":["REMOVE"]}}]},
      "DestinationConfig":{"OnFailure":{"Destination":"file:///tmp/failed.jsonl"}},
      "TimeoutSeconds":5,"Enabled":false,"Namespace":"worker-1"})"));
  d.scope = "worker-1";
  d.created_after_sequence = 77;
  d.created_ms = 1'700'000'001'000;
  wire::JsonWriter out;
  out.BeginObject();
  RenderDefinition(out, d, true);
  out.EndObject();
  ASSERT_OK_AND_ASSIGN(auto back, Parse(out.str(), true));
  wire::JsonWriter again;
  again.BeginObject();
  RenderDefinition(again, back, true);
  again.EndObject();
  EXPECT_EQ(again.str(), out.str());
  EXPECT_EQ(
      back.filter_criteria.patterns(),
      (std::vector<std::string>{R"({"eventName":["INSERT"]})", R"({"eventName":["REMOVE"]})"}));
  EXPECT_EQ(back.starting_timestamp_ms, 1'700'000'000'500);
  EXPECT_EQ(back.created_after_sequence, 77u);
  EXPECT_FALSE(Parse(out.str(), false).ok());  // Scope and the rest are ddbd's own
}

}  // namespace
}  // namespace ddbd::triggers
