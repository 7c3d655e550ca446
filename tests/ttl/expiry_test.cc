// Time to Live's expiry rule: which items count as expired.
#include "ttl/expiry.h"

#include <gtest/gtest.h>

namespace ddbd::ttl {
namespace {

constexpr int64_t kNowMs = 1'764'470'000'500;  // 2025-11-30T02:33:20.5Z
constexpr int64_t kYearSeconds = 31'557'600;   // 365.25 days

AttributeMap WithExpiry(AttributeValue value) { return {{"exp", std::move(value)}}; }
AttributeValue N(std::string text) { return AttributeValue::NumberText(std::move(text)); }

TEST(ExpiryTest, ExpiryFollowsDynamoDBsRules) {
  EXPECT_TRUE(IsExpired(WithExpiry(N("1764469999")), "exp", kNowMs));
  EXPECT_TRUE(IsExpired(WithExpiry(N("1764470000")), "exp", kNowMs));  // 0.5 s ago
  EXPECT_TRUE(IsExpired(WithExpiry(N("1764470000.4")), "exp", kNowMs));
  EXPECT_FALSE(IsExpired(WithExpiry(N("1764470000.5")), "exp", kNowMs));  // not before now
  EXPECT_FALSE(IsExpired(WithExpiry(N("1764470001")), "exp", kNowMs));
  // Five years back is the limit; beyond it items are left alone.
  const int64_t now_s = kNowMs / 1000;
  EXPECT_TRUE(
      IsExpired(WithExpiry(N(std::to_string(now_s - 5 * kYearSeconds + 1))), "exp", kNowMs));
  EXPECT_FALSE(
      IsExpired(WithExpiry(N(std::to_string(now_s - 5 * kYearSeconds - 1))), "exp", kNowMs));
  EXPECT_FALSE(IsExpired(WithExpiry(N("0")), "exp", kNowMs));
  // Only a top-level Number counts.
  EXPECT_FALSE(IsExpired(WithExpiry(AttributeValue::String("1")), "exp", kNowMs));
  EXPECT_FALSE(IsExpired(WithExpiry(AttributeValue::Set(AttributeType::kNS, {"1764469999"})), "exp",
                         kNowMs));
  EXPECT_FALSE(
      IsExpired(WithExpiry(AttributeValue::Map({{"exp", N("1764469999")}})), "exp", kNowMs));
  EXPECT_FALSE(IsExpired(WithExpiry(N("1764469999")), "other", kNowMs));
}

TEST(ExpiryTest, TheWindowsBoundsAreNumbersOfSeconds) {
  const ExpiryWindow window(kNowMs);
  EXPECT_EQ(window.now(), N("1764470000.5"));
  EXPECT_EQ(window.earliest(), N(std::to_string(kNowMs / 1000 - 5 * kYearSeconds) + ".5"));
}

}  // namespace
}  // namespace ddbd::ttl
