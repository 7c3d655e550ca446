// ClientTokens: TransactWriteItems' idempotency window.
#include "transactions/client_tokens.h"

#include <gtest/gtest.h>

namespace ddbd::transactions {
namespace {

TEST(ClientTokensTest, ARepeatGetsTheFirstAnswerWithinTheWindow) {
  ManualClock clock(1'700'000'000'000);
  ClientTokens tokens(clock, /*window_ms=*/500);
  auto first = tokens.Begin("", "t", "body");
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE(first->has_value());  // runs
  // While it runs, the same token waits for nobody: it is refused.
  EXPECT_EQ(tokens.Begin("", "t", "body").error().code(), ErrorCode::kTransactionInProgress);
  tokens.Finish("", "t", "{}");
  auto repeat = tokens.Begin("", "t", "body");
  ASSERT_TRUE(repeat.ok());
  EXPECT_EQ(repeat->value_or("none"), "{}");
  EXPECT_EQ(tokens.Begin("", "t", "other").error().code(), ErrorCode::kIdempotentParameterMismatch);
  // Another namespace has its own tokens.
  auto elsewhere = tokens.Begin("key/", "t", "other");
  ASSERT_TRUE(elsewhere.ok());
  EXPECT_FALSE(elsewhere->has_value());

  clock.Advance(499);
  EXPECT_EQ(tokens.Begin("", "t", "body")->value_or("none"), "{}");  // still within it
  clock.Advance(1);
  auto later = tokens.Begin("", "t", "other");  // the window has passed: a new request
  ASSERT_TRUE(later.ok());
  EXPECT_FALSE(later->has_value());
}

TEST(ClientTokensTest, AFailedRequestReleasesItsToken) {
  ClientTokens tokens(Clock::System());
  ASSERT_TRUE(tokens.Begin("", "t", "body").ok());
  tokens.Finish("", "t", std::nullopt);
  auto retry = tokens.Begin("", "t", "different body");
  ASSERT_TRUE(retry.ok());
  EXPECT_FALSE(retry->has_value());
}

// boto3 and the JS SDK send a token with every transaction: what a token keeps must not grow
// with the request (a digest of it is enough to tell a repeat from a mismatch).
TEST(ClientTokensTest, ATokenKeepsADigestOfTheRequestNotTheRequest) {
  ClientTokens tokens(Clock::System());
  const std::string request(1 << 20, 'x');
  ASSERT_TRUE(tokens.Begin("", "t", request).ok());
  tokens.Finish("", "t", "{}");
  EXPECT_LT(tokens.RetainedBytes(), 1000u);  // not the megabyte of the request
  EXPECT_EQ(tokens.Begin("", "t", request)->value_or("none"), "{}");
  std::string changed = request;
  changed.back() = 'y';
  EXPECT_EQ(tokens.Begin("", "t", changed).error().code(), ErrorCode::kIdempotentParameterMismatch);
}

// Past the cap, the tokens answered first are forgotten first; running ones are kept.
TEST(ClientTokensTest, TheTokensRetainedAreCappedOldestFirst) {
  ClientTokens tokens(Clock::System(), ClientTokens::kDefaultWindowMs, /*max_bytes=*/10'000);
  ASSERT_TRUE(tokens.Begin("", "running", "r").ok());
  const std::string answer(100, 'a');
  for (int i = 0; i < 1000; ++i) {
    const std::string token = "t" + std::to_string(i);
    ASSERT_TRUE(tokens.Begin("", token, "body").ok());
    tokens.Finish("", token, answer);
  }
  EXPECT_LE(tokens.RetainedBytes(), 10'000u + 300);  // the answered ones, and the running one
  EXPECT_FALSE(tokens.Begin("", "t0", "other")->has_value());  // forgotten: runs anew
  EXPECT_EQ(tokens.Begin("", "t999", "body")->value_or("none"), answer);
  EXPECT_EQ(tokens.Begin("", "running", "r").error().code(), ErrorCode::kTransactionInProgress);
}

}  // namespace
}  // namespace ddbd::transactions
