// Whole requests nested 10, 1,000 and 100,000 deep — the JSON body, attribute values, every
// expression grammar, legacy condition maps and PartiQL — run through the request path on a
// 1 MB thread stack: each gets DynamoDB's answer, none overflows the stack.
#include <gtest/gtest.h>

#include "tests/server/server_test_util.h"
#include "tests/testing/small_stack.h"

namespace ddbd::server {
namespace {

using testing::ServerHarness;
using Answered = std::pair<int, std::string>;  // status and error name ("" for a success)

std::string Repeat(std::string_view text, size_t times) {
  std::string out;
  out.reserve(text.size() * times);
  for (size_t i = 0; i < times; ++i) out += text;
  return out;
}

std::string Nested(size_t depth, std::string_view open, std::string_view middle,
                   std::string_view close) {
  return Repeat(open, depth) + std::string(middle) + Repeat(close, depth);
}

class RequestDepthTest : public ::testing::TestWithParam<size_t> {
 protected:
  void SetUp() override {
    ASSERT_EQ(server_
                  .Call("CreateTable", R"({"TableName":"Deep","BillingMode":"PAY_PER_REQUEST",
        "KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],
        "AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}]})")
                  .status,
              200);
  }
  // The reply's status and error name, computed on a small stack.
  Answered Answer(std::string_view operation, std::string body) {
    testing::Reply reply;
    ::ddbd::testing::RunOnSmallStack(::ddbd::testing::kSanitizerStackFactor * 1024 * 1024,
                                     [&] { reply = server_.Call(operation, body); });
    return {reply.status, reply.ErrorName()};
  }
  ServerHarness server_;
};

TEST_P(RequestDepthTest, EveryGrammarAnswersWithoutExhaustingTheStack) {
  const size_t depth = GetParam();
  const Answered refused(400, "ValidationException");
  const Answered ok(200, "");
  const Answered failed(400, "ConditionalCheckFailedException");
  const std::string values = R"("ExpressionAttributeValues":{":v":{"S":"x"}})";
  // Attribute values: 10 levels are stored, deeper ones refused (JSON past 1,024 levels is
  // not read at all).
  auto item = Answer("PutItem", R"({"TableName":"Deep","Item":{"pk":{"S":"a"},"x":)" +
                                    Nested(depth, R"({"L":[)", R"({"S":"v"})", "]}") + "}}");
  const Answered stored(200, "");
  const Answered too_deep(400, depth > 500 ? "SerializationException" : "ValidationException");
  EXPECT_EQ(item, depth == 10 ? stored : too_deep);
  EXPECT_EQ(Answer("GetItem", R"({"TableName":"Deep","Key":{"pk":{"S":"a"}},"Unknown":)" +
                                  Nested(depth, "[", "", "]") + "}")
                .first,
            depth == 100000 ? 400 : 200);
  // Conditions, filters, key conditions, projections and updates.
  EXPECT_EQ(
      Answer("PutItem", R"({"TableName":"Deep","Item":{"pk":{"S":"b"}},"ConditionExpression":")" +
                            Nested(depth, "(", "a = :v", ")") + "\"," + values + "}"),
      refused);
  EXPECT_EQ(
      Answer("PutItem", R"({"TableName":"Deep","Item":{"pk":{"S":"b"}},"ConditionExpression":")" +
                            Repeat("NOT ", depth) + "a = :v\"," + values + "}"),
      depth == 10 ? failed : refused);
  EXPECT_EQ(Answer("Scan", R"({"TableName":"Deep","FilterExpression":")" +
                               Nested(depth, "size(", "a", ")") + " = :v\"," + values + "}"),
            refused);
  EXPECT_EQ(Answer("Query", R"({"TableName":"Deep","KeyConditionExpression":")" +
                                Nested(depth, "(", "pk = :v", ")") + "\"," + values + "}"),
            refused);
  std::string path = "a";
  for (size_t i = 1; i < depth; ++i) path += ".a";
  EXPECT_EQ(
      Answer("GetItem", R"({"TableName":"Deep","Key":{"pk":{"S":"a"}},"ProjectionExpression":")" +
                            path + "\"}"),
      depth == 10 ? ok : refused);
  EXPECT_EQ(Answer("UpdateItem",
                   R"({"TableName":"Deep","Key":{"pk":{"S":"c"}},"UpdateExpression":"SET b = )" +
                       Nested(depth, "(", ":v", ")") + "\"," + values + "}"),
            depth == 10 ? ok : refused);
  // PartiQL conditions and literals.
  EXPECT_EQ(Answer("ExecuteStatement", R"({"Statement":"SELECT * FROM Deep WHERE )" +
                                           Nested(depth, "(", "pk = 'a'", ")") + "\"}")
                .first,
            depth == 10 ? 200 : 400);
  EXPECT_EQ(Answer("ExecuteStatement", R"({"Statement":"INSERT INTO Deep VALUE {'pk': 'd', 'l': )" +
                                           Nested(depth, "[", "1", "]") + "}\"}")
                .first,
            depth == 10 ? 200 : 400);
  // Legacy maps of `depth` conditions (capped at 10,000: a map cannot repeat a name).
  const size_t conditions = std::min<size_t>(depth, 10000);
  std::string filter;
  for (size_t i = 0; i < conditions; ++i) {
    filter += (i ? "," : "") + std::string("\"a") + std::to_string(i) +
              R"(":{"ComparisonOperator":"NULL"})";
  }
  EXPECT_EQ(Answer("Scan", R"({"TableName":"Deep","ScanFilter":{)" + filter + "}}").first, 200);
}

INSTANTIATE_TEST_SUITE_P(Depths, RequestDepthTest, ::testing::Values(10, 1000, 100000));

}  // namespace
}  // namespace ddbd::server
