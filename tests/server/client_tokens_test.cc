// ClientTokens: TransactWriteItems' idempotency window.
#include "server/client_tokens.h"

#include <gtest/gtest.h>

#include <thread>

namespace ddbd::server {
namespace {

TEST(ClientTokensTest, ARepeatGetsTheFirstAnswerWithinTheWindow) {
  ClientTokens tokens(std::chrono::milliseconds(500));
  auto first = tokens.Begin("", "t", "body");
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE(first->has_value());  // runs
  // While it runs, the same token waits for nobody: it is refused.
  EXPECT_EQ(tokens.Begin("", "t", "body").error().code(), ErrorCode::kTransactionInProgress);
  tokens.Finish("", "t", "{}");
  auto repeat = tokens.Begin("", "t", "body");
  ASSERT_TRUE(repeat.ok());
  EXPECT_EQ(repeat->value_or("none"), "{}");
  EXPECT_EQ(tokens.Begin("", "t", "other").error().code(),
            ErrorCode::kIdempotentParameterMismatch);
  // Another namespace has its own tokens.
  auto elsewhere = tokens.Begin("key/", "t", "other");
  ASSERT_TRUE(elsewhere.ok());
  EXPECT_FALSE(elsewhere->has_value());

  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  auto later = tokens.Begin("", "t", "other");  // the window has passed: a new request
  ASSERT_TRUE(later.ok());
  EXPECT_FALSE(later->has_value());
}

TEST(ClientTokensTest, AFailedRequestReleasesItsToken) {
  ClientTokens tokens;
  ASSERT_TRUE(tokens.Begin("", "t", "body").ok());
  tokens.Finish("", "t", std::nullopt);
  auto retry = tokens.Begin("", "t", "different body");
  ASSERT_TRUE(retry.ok());
  EXPECT_FALSE(retry->has_value());
}

}  // namespace
}  // namespace ddbd::server
