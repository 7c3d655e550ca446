// Number: parsing, canonical form, limits, ordering, arithmetic and the size measure.
#include "model/number.h"

#include <gtest/gtest.h>

#include "tests/testing/assertions.h"

namespace ddbd {
namespace {

std::string Canonical(std::string_view literal) {
  auto parsed = Number::Parse(literal);
  return parsed.ok() ? parsed->ToString() : "ERROR: " + parsed.error().message();
}

Number N(std::string_view literal) {
  auto parsed = Number::Parse(literal);
  EXPECT_TRUE(parsed.ok()) << literal;
  return parsed.ok() ? *parsed : Number();
}

constexpr std::string_view kOverflow =
    "Number overflow. Attempting to store a number with magnitude larger than supported range";
constexpr std::string_view kUnderflow =
    "Number underflow. Attempting to store a number with magnitude smaller than supported range";
constexpr std::string_view kPrecision =
    "Attempting to store more than 38 significant digits in a Number";

TEST(NumberTest, NormalisesLikeDynamoDB) {
  EXPECT_EQ(Canonical("007"), "7");
  EXPECT_EQ(Canonical("001.23"), "1.23");
  EXPECT_EQ(Canonical("+5"), "5");
  EXPECT_EQ(Canonical("1.10"), "1.1");
  EXPECT_EQ(Canonical("1.0"), "1");
  EXPECT_EQ(Canonical("100.000"), "100");
  EXPECT_EQ(Canonical(".5"), "0.5");
  EXPECT_EQ(Canonical("-.5"), "-0.5");
  EXPECT_EQ(Canonical("5."), "5");
  EXPECT_EQ(Canonical("1e3"), "1000");
  EXPECT_EQ(Canonical("1.23e-1"), "0.123");
  EXPECT_EQ(Canonical("1E-20"), "0.00000000000000000001");
  EXPECT_EQ(Canonical("-0"), "0");
  EXPECT_EQ(Canonical("-0.0"), "0");
  EXPECT_EQ(Canonical("0e5"), "0");
  EXPECT_EQ(Canonical("00"), "0");
  EXPECT_EQ(Canonical("123.456e2"), "12345.6");
  EXPECT_EQ(Canonical("1e125"), "1" + std::string(125, '0'));
}

TEST(NumberTest, RejectsMalformedLiterals) {
  EXPECT_EQ(Canonical(""), "ERROR: The parameter cannot be converted to a numeric value");
  for (std::string_view bad : {"abc", "1.2.3", "1e", "--1", " 1", "1 ", "NaN", "Infinity", "0x10",
                               ".", "-", "1e+", "e5", "1_000"}) {
    EXPECT_EQ(Canonical(bad),
              "ERROR: The parameter cannot be converted to a numeric value: " + std::string(bad))
        << bad;
  }
}

TEST(NumberTest, EnforcesMagnitudeRange) {
  EXPECT_EQ(Canonical("9.9999999999999999999999999999999999999E+125"),
            "99999999999999999999999999999999999999" + std::string(88, '0'));
  EXPECT_EQ(Canonical("1E+126"), "ERROR: " + std::string(kOverflow));
  EXPECT_EQ(Canonical("-1E+126"), "ERROR: " + std::string(kOverflow));
  EXPECT_EQ(Canonical("1E-130"), "0." + std::string(129, '0') + "1");
  EXPECT_EQ(Canonical("1E-131"), "ERROR: " + std::string(kUnderflow));
  EXPECT_EQ(Canonical("-1E-131"), "ERROR: " + std::string(kUnderflow));
  // A huge exponent is rejected without being expanded.
  EXPECT_EQ(Canonical("1.0e100000000"), "ERROR: " + std::string(kOverflow));
  EXPECT_EQ(Canonical("1e-99999999999999999999"), "ERROR: " + std::string(kUnderflow));
}

TEST(NumberTest, ZeroQuirk) {
  // DynamoDB judges a bare 0 by its nominal exponent, but not 0.0.
  EXPECT_EQ(Canonical("0e126"), "ERROR: " + std::string(kOverflow));
  EXPECT_EQ(Canonical("0e-131"), "ERROR: " + std::string(kUnderflow));
  EXPECT_EQ(Canonical("0.0e126"), "0");
  EXPECT_EQ(Canonical("0e125"), "0");
}

TEST(NumberTest, EnforcesThirtyEightDigits) {
  EXPECT_EQ(Canonical("3.1415926535897932384626433832795028841"),
            "3.1415926535897932384626433832795028841");
  EXPECT_EQ(Canonical("3.14159265358979323846264338327950288419"),
            "ERROR: " + std::string(kPrecision));
  // Leading and trailing zeros do not count.
  EXPECT_EQ(Canonical("000012345678901234567890123456789012345678000000"),
            "12345678901234567890123456789012345678000000");
  EXPECT_EQ(Canonical("0.000012345678901234567890123456789012345678"),
            "0.000012345678901234567890123456789012345678");
}

TEST(NumberTest, ComparesNumerically) {
  EXPECT_LT(N("-10"), N("-9"));
  EXPECT_LT(N("-1"), N("0"));
  EXPECT_LT(N("0"), N("0.0001"));
  EXPECT_LT(N("9"), N("10"));
  EXPECT_LT(N("1.2"), N("1.23"));
  EXPECT_LT(N("-1.23"), N("-1.2"));
  EXPECT_EQ(N("1000"), N("1e3"));
  EXPECT_EQ(N("-0"), N("0"));
  EXPECT_GT(N("1e125"), N("9.99e124"));
}

TEST(NumberTest, AddsAndSubtractsExactly) {
  auto add = [](std::string_view a, std::string_view b) {
    auto r = Number::Add(N(a), N(b));
    return r.ok() ? r->ToString() : "ERROR: " + r.error().message();
  };
  auto sub = [](std::string_view a, std::string_view b) {
    auto r = Number::Subtract(N(a), N(b));
    return r.ok() ? r->ToString() : "ERROR: " + r.error().message();
  };
  EXPECT_EQ(add("0.1", "0.2"), "0.3");
  EXPECT_EQ(add("1", "-1"), "0");
  EXPECT_EQ(add("999", "1"), "1000");
  EXPECT_EQ(add("-5", "3"), "-2");
  EXPECT_EQ(add("3", "-5"), "-2");
  EXPECT_EQ(add("1.5", "2.25"), "3.75");
  EXPECT_EQ(add("12345678901234567890123456789012345678", "1"),
            "12345678901234567890123456789012345679");
  EXPECT_EQ(sub("10", "0.001"), "9.999");
  EXPECT_EQ(sub("-1", "-1"), "0");
  EXPECT_EQ(sub("0", "7"), "-7");
  EXPECT_EQ(add("9e125", "9e125"), "ERROR: " + std::string(kOverflow));
  EXPECT_EQ(add("1e50", "1"), "ERROR: " + std::string(kPrecision));
  EXPECT_EQ(sub("2e-130", "1.5e-130"), "ERROR: " + std::string(kUnderflow));
}

TEST(NumberTest, StorageSizeFollowsDynamoDB) {
  const std::pair<std::string_view, size_t> cases[] = {
      {"0", 1},       {"-0", 1},     {"1", 2},    {"12", 2},        {"123", 3}, {"100", 2},
      {"1010", 3},    {"0042", 2},   {"0.15", 2}, {"0.0000001", 2}, {"1.5", 3}, {"100.5", 4},
      {"3.14159", 5}, {"123456", 4}, {"-42", 3},  {"1E125", 2},
  };
  for (const auto& [literal, size] : cases) EXPECT_EQ(N(literal).StorageSize(), size) << literal;
}

}  // namespace
}  // namespace ddbd
