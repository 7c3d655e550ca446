// Lambda's filter patterns over DynamoDB stream records: literals, operators, nesting, $or,
// string sets, and the refusals of malformed patterns.
#include "triggers/filter.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include "tests/testing/assertions.h"

namespace ddbd::triggers {
namespace {

constexpr std::string_view kInsert = R"({"eventName":"INSERT","dynamodb":{
  "Keys":{"pk":{"S":"order#1"}},
  "NewImage":{"pk":{"S":"order#1"},"type":{"S":"Order"},"total":{"N":"42.5"},
              "tags":{"SS":["blue","red"]},"paid":{"BOOL":true},"note":{"S":""}}}})";
constexpr std::string_view kRemove = R"({"eventName":"REMOVE","dynamodb":{
  "Keys":{"pk":{"S":"user#9"}},"OldImage":{"pk":{"S":"user#9"},"type":{"S":"User"}}},
  "userIdentity":{"type":"Service","principalId":"dynamodb.amazonaws.com"}})";

bool Matches(std::vector<std::string> patterns, std::string_view record) {
  auto criteria = FilterCriteria::Parse(std::move(patterns));
  EXPECT_TRUE(criteria.ok()) << criteria.error().message();
  simdjson::dom::parser parser;
  return criteria->Matches(parser.parse(record.data(), record.size()).value());
}

TEST(FilterCriteriaTest, NoFiltersMatchEverything) { EXPECT_TRUE(Matches({}, kInsert)); }

TEST(FilterCriteriaTest, InsertsOfOneEntityType) {
  const std::string pattern =
      R"({"eventName":["INSERT"],"dynamodb":{"NewImage":{"type":{"S":["Order"]}}}})";
  EXPECT_TRUE(Matches({pattern}, kInsert));
  EXPECT_FALSE(Matches({pattern}, kRemove));
}

TEST(FilterCriteriaTest, FiltersAreAlternatives) {
  EXPECT_TRUE(Matches({R"({"eventName":["MODIFY"]})", R"({"eventName":["REMOVE"]})"}, kRemove));
  EXPECT_FALSE(Matches({R"({"eventName":["MODIFY"]})", R"({"eventName":["INSERT"]})"}, kRemove));
}

TEST(FilterCriteriaTest, Operators) {
  EXPECT_TRUE(Matches({R"({"dynamodb":{"Keys":{"pk":{"S":[{"prefix":"order#"}]}}}})"}, kInsert));
  EXPECT_FALSE(Matches({R"({"dynamodb":{"Keys":{"pk":{"S":[{"prefix":"user#"}]}}}})"}, kInsert));
  EXPECT_TRUE(Matches({R"({"dynamodb":{"Keys":{"pk":{"S":[{"suffix":"#1"}]}}}})"}, kInsert));
  EXPECT_TRUE(
      Matches({R"({"dynamodb":{"Keys":{"pk":{"S":[{"prefix":{"equals-ignore-case":"ORDER"}}]}}}})"},
              kInsert));
  EXPECT_TRUE(Matches({R"({"eventName":[{"equals-ignore-case":"insert"}]})"}, kInsert));
  EXPECT_TRUE(Matches({R"({"eventName":[{"anything-but":["REMOVE","MODIFY"]}]})"}, kInsert));
  EXPECT_FALSE(Matches({R"({"eventName":[{"anything-but":"INSERT"}]})"}, kInsert));
  EXPECT_TRUE(Matches({R"({"dynamodb":{"Keys":{"pk":{"S":[{"wildcard":"order*1"}]}}}})"}, kInsert));
  EXPECT_FALSE(Matches({R"({"dynamodb":{"Keys":{"pk":{"S":[{"wildcard":"user*"}]}}}})"}, kInsert));
}

TEST(FilterCriteriaTest, NumericComparesTheStringsOfNumbers) {
  const std::string in_range =
      R"({"dynamodb":{"NewImage":{"total":{"N":[{"numeric":[">",40,"<=",42.5]}]}}}})";
  EXPECT_TRUE(Matches({in_range}, kInsert));
  EXPECT_FALSE(
      Matches({R"({"dynamodb":{"NewImage":{"total":{"N":[{"numeric":["<",10]}]}}}})"}, kInsert));
  EXPECT_TRUE(
      Matches({R"({"dynamodb":{"NewImage":{"total":{"N":[{"numeric":["=",42.5]}]}}}})"}, kInsert));
}

TEST(FilterCriteriaTest, ExistsEmptyBooleansAndSets) {
  EXPECT_TRUE(Matches({R"({"userIdentity":{"type":["Service"]}})"}, kRemove));
  EXPECT_FALSE(Matches({R"({"userIdentity":{"type":["Service"]}})"}, kInsert));
  EXPECT_TRUE(Matches({R"({"userIdentity":[{"exists":false}]})"}, kInsert));
  EXPECT_FALSE(Matches({R"({"userIdentity":[{"exists":false}]})"}, kRemove));
  EXPECT_TRUE(Matches({R"({"dynamodb":{"NewImage":{"note":{"S":[""]}}}})"}, kInsert));
  EXPECT_TRUE(Matches({R"({"dynamodb":{"NewImage":{"paid":{"BOOL":[true]}}}})"}, kInsert));
  EXPECT_FALSE(Matches({R"({"dynamodb":{"NewImage":{"paid":{"BOOL":[false]}}}})"}, kInsert));
  EXPECT_TRUE(Matches({R"({"dynamodb":{"NewImage":{"tags":{"SS":["red"]}}}})"}, kInsert));
  EXPECT_FALSE(Matches({R"({"dynamodb":{"NewImage":{"tags":{"SS":["green"]}}}})"}, kInsert));
}

TEST(FilterCriteriaTest, OrOfPatterns) {
  const std::string pattern =
      R"({"$or":[{"eventName":["REMOVE"]},{"dynamodb":{"NewImage":{"type":{"S":["Order"]}}}}]})";
  EXPECT_TRUE(Matches({pattern}, kInsert));
  EXPECT_TRUE(Matches({pattern}, kRemove));
  EXPECT_FALSE(Matches({R"({"$or":[{"eventName":["MODIFY"]},{"eventName":["X"]}]})"}, kInsert));
}

TEST(FilterCriteriaTest, RefusesMalformedPatterns) {
  for (std::string pattern : {"not json", "[1]", "{}", R"({"eventName":"INSERT"})",
                              R"({"eventName":[]})", R"({"eventName":[{"nope":1}]})",
                              R"({"x":[{"numeric":[">"]}]})", R"({"x":[{"numeric":["~",1]}]})",
                              R"({"x":[{"exists":"yes"}]})", R"({"$or":[{"a":["b"]}]})"}) {
    auto parsed = FilterCriteria::Parse({pattern});
    ASSERT_FALSE(parsed.ok()) << pattern;
    EXPECT_EQ(parsed.error().code(), ErrorCode::kValidation);
    EXPECT_NE(parsed.error().message().find("Invalid filter pattern definition"),
              std::string::npos);
  }
  auto too_many = FilterCriteria::Parse(std::vector<std::string>(6, R"({"a":["b"]})"));
  EXPECT_FALSE(too_many.ok());
}

}  // namespace
}  // namespace ddbd::triggers
