// Key value encodings: byte order must equal DynamoDB's order (and CompareKeyValues'),
// encodings must be prefix-free, and every encoding decodes back to its value.
#include "model/key_encoding.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "model/number.h"

namespace ddbd {
namespace {

// DynamoDB's order of two key values of one type: bytes for S and B, numeric for N.
int DynamoOrder(const AttributeValue& a, const AttributeValue& b) {
  if (a.type() == AttributeType::kN) {
    auto c = Compare(*Number::Parse(a.scalar()), *Number::Parse(b.scalar()));
    return c < 0 ? -1 : c > 0 ? 1 : 0;
  }
  // Unsigned byte comparison.
  const auto& x = a.scalar();
  const auto& y = b.scalar();
  int c = std::lexicographical_compare(
              x.begin(), x.end(), y.begin(), y.end(),
              [](char p, char q) { return static_cast<uint8_t>(p) < static_cast<uint8_t>(q); })
              ? -1
              : (x == y ? 0 : 1);
  return c;
}

int ByteOrder(const std::string& a, const std::string& b) {
  int c = a.compare(b);  // std::string compares as unsigned char via char_traits
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

std::string RandomBytes(std::mt19937_64& random, bool allow_all_bytes) {
  std::uniform_int_distribution<int> length(0, 12);
  // Small alphabets (with 0x00 and 0xFF) make shared prefixes and escapes likely.
  static constexpr char kAlphabet[] = {'\0', '\x01', 'a', 'b', '\xFE', '\xFF'};
  std::string s(static_cast<size_t>(length(random)), '\0');
  for (auto& c : s) {
    c = allow_all_bytes ? static_cast<char>(random() & 0xFF) : kAlphabet[random() % 6];
  }
  return s;
}

std::string RandomNumberLiteral(std::mt19937_64& random) {
  std::uniform_int_distribution<int> digits(1, 38);
  std::uniform_int_distribution<int> exponent(-120, 110);
  std::string literal = (random() % 2) ? "-" : "";
  int n = digits(random);
  for (int i = 0; i < n; ++i) {
    // Few distinct digits: many values share leading digits.
    literal.push_back(static_cast<char>('0' + (random() % 3 == 0 ? random() % 10 : 1)));
  }
  if (random() % 4 == 0) return literal;  // plain integer
  return literal + "e" + std::to_string(exponent(random) % (random() % 3 == 0 ? 5 : 121));
}

KeyAttributeType KeyTypeOf(const AttributeValue& value) {
  return value.type() == AttributeType::kS   ? KeyAttributeType::kS
         : value.type() == AttributeType::kN ? KeyAttributeType::kN
                                             : KeyAttributeType::kB;
}

void ExpectOrderPreserved(const std::vector<AttributeValue>& values) {
  for (const AttributeValue& value : values) {
    // Decoding reads exactly one encoding and gives the value back.
    const std::string encoded = EncodeKeyValue(value) + "tail";
    std::string_view in = encoded;
    Result<AttributeValue> decoded = DecodeKeyValue(in, KeyTypeOf(value));
    ASSERT_TRUE(decoded.ok());
    ASSERT_EQ(*decoded, value);
    ASSERT_EQ(in, "tail");
  }
  for (size_t i = 0; i < values.size(); ++i) {
    for (size_t j = 0; j < values.size(); ++j) {
      std::string a = EncodeKeyValue(values[i]);
      std::string b = EncodeKeyValue(values[j]);
      ASSERT_EQ(ByteOrder(a, b), DynamoOrder(values[i], values[j]))
          << TypeName(values[i].type()) << " " << i << " vs " << j;
      const auto order = CompareKeyValues(values[i], values[j]);
      ASSERT_EQ(order < 0 ? -1 : order > 0 ? 1 : 0, DynamoOrder(values[i], values[j]));
      // Prefix-free: a different value's encoding never starts with this one.
      if (DynamoOrder(values[i], values[j]) != 0) {
        ASSERT_NE(b.compare(0, a.size(), a), 0);
      }
    }
  }
}

TEST(KeyEncodingTest, StringOrderMatchesDynamoDB) {
  std::mt19937_64 random(1);
  std::vector<AttributeValue> values;
  for (int i = 0; i < 300; ++i)
    values.push_back(AttributeValue::String(RandomBytes(random, false)));
  ExpectOrderPreserved(values);
}

TEST(KeyEncodingTest, BinaryOrderMatchesDynamoDB) {
  std::mt19937_64 random(2);
  std::vector<AttributeValue> values;
  for (int i = 0; i < 300; ++i) {
    values.push_back(AttributeValue::Binary(RandomBytes(random, i % 2 == 0)));
  }
  ExpectOrderPreserved(values);
}

TEST(KeyEncodingTest, NumberOrderMatchesDynamoDB) {
  std::mt19937_64 random(3);
  std::vector<AttributeValue> values;
  for (std::string_view fixed : {"0", "1", "-1", "10", "9", "1.5", "-1.5", "1e-130", "-1e-130",
                                 "9.9999999999999999999999999999999999999e125", "100", "0.01"}) {
    values.push_back(AttributeValue::NumberText(Number::Parse(fixed)->ToString()));
  }
  for (int i = 0; i < 300; ++i) {
    auto parsed = Number::Parse(RandomNumberLiteral(random));
    if (parsed.ok()) values.push_back(AttributeValue::NumberText(parsed->ToString()));
  }
  ExpectOrderPreserved(values);
}

TEST(KeyEncodingTest, EqualNumbersEncodeEqually) {
  EXPECT_EQ(EncodeKeyValue(AttributeValue::NumberText(Number::Parse("1e3")->ToString())),
            EncodeKeyValue(AttributeValue::NumberText("1000")));
}

TEST(KeyEncodingTest, TableKeysRoundTripAndRefuseOtherBytes) {
  TableDef table;
  table.partition_key = {"pk", KeyAttributeType::kN};
  table.sort_key = KeyElement{"sk", KeyAttributeType::kB};
  const PrimaryKey key{AttributeValue::NumberText("-12.5"),
                       AttributeValue::Binary(std::string("a\0b", 3))};
  Result<PrimaryKey> decoded = DecodeKey(EncodeKey(key), table);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(*decoded, key);
  EXPECT_FALSE(DecodeKey(EncodeKey(key) + "x", table).ok());
  EXPECT_FALSE(DecodeKey("\x03", table).ok());
  EXPECT_FALSE(DecodeKey(std::string("\x03\x80\x0B\x00", 4), table).ok());  // digit 10
}

// Only what EncodeKeyValue writes decodes: a number's digits are its significant digits, so
// a leading or trailing zero digit (which another encoding of the same number lacks) is
// refused (found by fuzz.key_codec).
TEST(KeyEncodingTest, NumbersWithZeroDigitsAtEitherEndAreRefused) {
  std::string_view canonical("\x03\x80\x05\x00", 4);  // 4 × 10^k
  ASSERT_TRUE(DecodeKeyValue(canonical, KeyAttributeType::kN).ok());
  for (std::string bytes : {std::string("\x03\x80\x05\x01\x01\x00", 6),  // digits 400
                            std::string("\x03\x80\x01\x05\x00", 5),      // digits 04
                            std::string("\x01\x7f\x0a\x05\xff", 5),      // digits 05, negative
                            std::string("\x01\x7f\x06\x0a\xff", 5)}) {   // digits 40, negative
    std::string_view in = bytes;
    EXPECT_FALSE(DecodeKeyValue(in, KeyAttributeType::kN).ok()) << testing::PrintToString(bytes);
  }
}

}  // namespace
}  // namespace ddbd
