// Legacy parameters → expression trees: the checks DynamoDB makes, in its words, and trees
// that evaluate as the legacy semantics say.
#include "expressions/legacy.h"

#include <gtest/gtest.h>

#include "expressions/evaluator.h"
#include "tests/testing/assertions.h"

namespace ddbd::expressions::legacy {
namespace {

AttributeValue S(std::string s) { return AttributeValue::String(std::move(s)); }
AttributeValue N(std::string n) { return AttributeValue::NumberText(std::move(n)); }

Comparison Filter(std::string attribute, std::string op, std::vector<AttributeValue> values) {
  Comparison entry;
  entry.attribute = std::move(attribute);
  entry.op = std::move(op);
  entry.has_value_list = !values.empty();
  entry.values = std::move(values);
  return entry;
}

std::string Refusal(std::vector<Comparison> entries) {
  Bindings bindings;
  auto translated = TranslateComparisons(std::move(entries), "scanFilter", false, bindings);
  return translated.ok() ? "accepted" : translated.error().message();
}

TEST(LegacyTest, OperatorsAreCheckedInDynamoDBsOrderAndWords) {
  EXPECT_EQ(Refusal({Filter("a", "eq", {S("x")})}),
            "1 validation error detected: Value 'eq' at 'scanFilter.a.member.comparisonOperator' "
            "failed to satisfy constraint: Member must satisfy enum value set: [IN, NULL, "
            "BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]");
  EXPECT_EQ(Refusal({Filter("a", "EQ", {})}),
            "One or more parameter values were invalid: Invalid number of argument(s) for the EQ "
            "ComparisonOperator");
  EXPECT_EQ(Refusal({Filter("a", "IN", {S("x"), N("1")})}),
            "One or more parameter values were invalid: AttributeValues inside "
            "AttributeValueList must be of same type");
  EXPECT_EQ(Refusal({Filter("a", "BEGINS_WITH", {N("1")})}),
            "One or more parameter values were invalid: ComparisonOperator BEGINS_WITH is not "
            "valid for N AttributeValue type");
  EXPECT_EQ(Refusal({Filter("a", "BETWEEN", {N("5"), N("1")})}),
            "The BETWEEN condition was provided a range where the lower bound is greater than "
            "the upper bound");
  Comparison no_operator = Filter("a", "EQ", {S("x")});
  no_operator.op.reset();
  EXPECT_EQ(Refusal({no_operator}),
            "1 validation error detected: Value null at 'comparisonOperator' failed to satisfy "
            "constraint: Member must not be null");
  EXPECT_EQ(Refusal({Filter("a", "BETWEEN", {N("1"), N("5")}), Filter("b", "NULL", {})}),
            "accepted");
}

TEST(LegacyTest, NotContainsIsFalseForAMissingAttribute) {
  Bindings bindings;
  ASSERT_OK_AND_ASSIGN(
      auto condition, TranslateComparisons({Filter("tags", "NOT_CONTAINS", {S("x")})}, "scanFilter",
                                           false, bindings));
  ASSERT_TRUE(condition.has_value());
  EXPECT_FALSE(Matches(*condition, Item{}, bindings));
  EXPECT_TRUE(Matches(*condition, Item{{"tags", S("abc")}}, bindings));
  EXPECT_FALSE(Matches(*condition, Item{{"tags", S("xyz")}}, bindings));
}

TEST(LegacyTest, ExpectedValueExistsAndEmptyMaps) {
  Bindings bindings;
  Comparison must_equal;
  must_equal.attribute = "v";
  must_equal.value = N("3");
  Comparison must_be_absent;
  must_be_absent.attribute = "gone";
  must_be_absent.exists = false;
  ASSERT_OK_AND_ASSIGN(auto condition,
                       TranslateExpected({must_equal, must_be_absent}, false, bindings));
  ASSERT_TRUE(condition.has_value());
  EXPECT_TRUE(Matches(*condition, Item{{"v", N("3")}}, bindings));
  EXPECT_FALSE(Matches(*condition, Item{{"v", N("3")}, {"gone", S("x")}}, bindings));
  ASSERT_OK_AND_ASSIGN(auto none, TranslateExpected({}, false, bindings));
  EXPECT_FALSE(none.has_value());  // Expected: {} is no condition
  Comparison both = must_equal;
  both.exists = false;
  auto refused = TranslateExpected({both}, false, bindings);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message(),
            "One or more parameter values were invalid: Value cannot "
            "be used when Exists is false for Attribute: v");
}

TEST(LegacyTest, ThousandsOfConditionsMakeAShallowTree) {
  std::vector<Comparison> entries;
  for (int i = 0; i < 10000; ++i) entries.push_back(Filter("a" + std::to_string(i), "NULL", {}));
  Bindings bindings;
  ASSERT_OK_AND_ASSIGN(auto condition,
                       TranslateComparisons(std::move(entries), "scanFilter", true, bindings));
  size_t depth = 0;
  for (const Condition* node = &*condition; !node->children.empty(); node = &node->children[0]) {
    ++depth;
  }
  EXPECT_LE(depth, 14u);  // ⌈log2 10000⌉
  EXPECT_TRUE(Matches(*condition, Item{}, bindings));
}

TEST(LegacyTest, AttributeUpdatesActions) {
  Bindings bindings;
  ASSERT_OK_AND_ASSIGN(auto update,
                       TranslateAttributeUpdates({{"n", "ADD", N("2")},
                                                  {"l", "ADD", AttributeValue::List({S("b")})},
                                                  {"s", std::nullopt, S("put")},
                                                  {"gone", "DELETE", std::nullopt}},
                                                 bindings));
  ASSERT_EQ(update.actions.size(), 4u);
  EXPECT_EQ(update.actions[0].kind, UpdateAction::Kind::kAdd);
  EXPECT_EQ(update.actions[1].kind, UpdateAction::Kind::kSet);  // list_append(if_not_exists…)
  EXPECT_EQ(update.actions[1].value.kind, Operand::Kind::kListAppend);
  EXPECT_EQ(update.actions[2].kind, UpdateAction::Kind::kSet);
  EXPECT_EQ(update.actions[3].kind, UpdateAction::Kind::kRemove);
  auto refused = TranslateAttributeUpdates({{"x", "put", S("v")}}, bindings);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message(),
            "1 validation error detected: Value 'put' at 'attributeUpdates.x.member.action' "
            "failed to satisfy constraint: Member must satisfy enum value set: [ADD, DELETE, "
            "PUT]");
}

}  // namespace
}  // namespace ddbd::expressions::legacy
