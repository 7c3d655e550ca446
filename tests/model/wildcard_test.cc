// Wildcard patterns: IAM's (`*`, `?`, optionally without regard to case) and Lambda's filter
// operator (`*` only).
#include "model/wildcard.h"

#include <gtest/gtest.h>

namespace ddbd {
namespace {

constexpr WildcardSyntax kIam{.question_mark = true};

TEST(WildcardMatchTest, IamWildcards) {
  EXPECT_TRUE(WildcardMatch("dynamodb:*", "dynamodb:GetItem", kIam));
  EXPECT_TRUE(WildcardMatch("dynamodb:*Item", "dynamodb:BatchWriteItem", kIam));
  EXPECT_TRUE(WildcardMatch("dynamodb:?etItem", "dynamodb:GetItem", kIam));
  EXPECT_FALSE(WildcardMatch("dynamodb:Get*", "dynamodb:PutItem", kIam));
  EXPECT_FALSE(WildcardMatch("dynamodb:getitem", "dynamodb:GetItem", kIam));
  EXPECT_TRUE(WildcardMatch("dynamodb:getitem", "dynamodb:GetItem",
                            {.question_mark = true, .ignore_case = true}));
  EXPECT_TRUE(WildcardMatch("*", "", kIam));
  EXPECT_FALSE(WildcardMatch("a*b", "ac", kIam));
}

TEST(WildcardMatchTest, AQuestionMarkIsLiteralWithoutItsSyntax) {
  EXPECT_FALSE(WildcardMatch("a?c", "abc"));
  EXPECT_TRUE(WildcardMatch("a?c", "a?c"));
  EXPECT_TRUE(WildcardMatch("order*1", "order#1"));
  EXPECT_TRUE(WildcardMatch("*/lib/*", "/usr/lib/x"));
  EXPECT_FALSE(WildcardMatch("user*", "order#1"));
}

}  // namespace
}  // namespace ddbd
