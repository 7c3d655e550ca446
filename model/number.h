// Number: DynamoDB's exact decimal number (never a double). Up to 38 significant digits,
// magnitude 1E-130 .. 9.99…E+125, rendered in plain decimal notation as DynamoDB does.
// Entry points: Number::Parse (validates like DynamoDB), ToString, Compare, Add, Subtract,
// StorageSize (the item-size measure of a number).
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "model/result.h"

namespace ddbd {

class Number {
 public:
  static constexpr int kMaxSignificantDigits = 38;
  static constexpr int kMaxExponent = 125;   // largest allowed adjusted exponent
  static constexpr int kMinExponent = -130;  // smallest allowed adjusted exponent

  // Zero.
  Number() = default;

  // Parses a DynamoDB number literal: optional sign, digits with an optional point,
  // optional exponent. Fails with DynamoDB's ValidationException message.
  static Result<Number> Parse(std::string_view literal);

  bool is_zero() const { return digits_.empty(); }
  bool negative() const { return negative_; }
  // Significant digits, without leading or trailing zeros; empty for zero.
  const std::string& digits() const { return digits_; }
  // The exponent of the first significant digit: value = d.ddd… × 10^adjusted_exponent.
  int adjusted_exponent() const { return exponent_; }

  // Canonical plain-decimal text: no exponent, no '+', no superfluous zeros, "0" for zero.
  std::string ToString() const;

  // Bytes this number counts for in DynamoDB's item-size measure.
  size_t StorageSize() const;

  friend std::strong_ordering Compare(const Number& a, const Number& b);
  friend bool operator==(const Number& a, const Number& b) = default;
  friend std::strong_ordering operator<=>(const Number& a, const Number& b) {
    return Compare(a, b);
  }

  // Exact arithmetic; the result is checked against DynamoDB's precision and range.
  static Result<Number> Add(const Number& a, const Number& b);
  static Result<Number> Subtract(const Number& a, const Number& b);

 private:
  Number(bool negative, std::string digits, int exponent)
      : negative_(negative), digits_(std::move(digits)), exponent_(exponent) {}
  // Strips leading/trailing zeros of `digits` (value = digits × 10^scale) and validates.
  static Result<Number> FromDigits(bool negative, std::string digits, int64_t scale);

  bool negative_ = false;
  std::string digits_;
  int exponent_ = 0;
};

}  // namespace ddbd
