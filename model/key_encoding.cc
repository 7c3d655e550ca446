// Order-preserving key value encodings, and their decoding.
#include "model/key_encoding.h"

#include "model/number.h"

namespace ddbd {
namespace {

// Stored on disk: never renumber.
constexpr uint8_t kNegative = 0x01;
constexpr uint8_t kZero = 0x02;
constexpr uint8_t kPositive = 0x03;
constexpr uint8_t kDigitsEnd = 0x00;          // after positive digits (encoded 1..10)
constexpr uint8_t kNegativeDigitsEnd = 0xFF;  // after negative digits (encoded 10..1)

Error Corrupt() { return Error::Internal("corrupt key encoding"); }

void EscapeBytes(std::string_view bytes, std::string& out) {
  for (char c : bytes) {
    out.push_back(c);
    if (c == '\0') out.push_back('\xFF');
  }
}

void EncodeNumber(const std::string& canonical, std::string& out) {
  Result<Number> parsed = Number::Parse(canonical);
  // Key numbers were validated on the way in; a corrupt one sorts as zero rather than crash.
  if (!parsed.ok() || parsed->is_zero()) {
    out.push_back(static_cast<char>(kZero));
    return;
  }
  const Number& n = *parsed;
  // The adjusted exponent spans exactly -130..125: one byte.
  const uint8_t exponent = static_cast<uint8_t>(n.adjusted_exponent() - Number::kMinExponent);
  if (!n.negative()) {
    out.push_back(static_cast<char>(kPositive));
    out.push_back(static_cast<char>(exponent));
    for (char d : n.digits()) out.push_back(static_cast<char>(d - '0' + 1));
    out.push_back(static_cast<char>(kDigitsEnd));
  } else {
    out.push_back(static_cast<char>(kNegative));
    out.push_back(static_cast<char>(255 - exponent));
    for (char d : n.digits()) out.push_back(static_cast<char>(10 - (d - '0')));
    out.push_back(static_cast<char>(kNegativeDigitsEnd));
  }
}

Result<std::string> DecodeBytes(std::string_view& in) {
  std::string bytes;
  for (size_t i = 0; i + 1 < in.size(); ++i) {
    if (in[i] != '\0') {
      bytes.push_back(in[i]);
    } else if (in[i + 1] == '\xFF') {
      bytes.push_back('\0');
      ++i;
    } else if (in[i + 1] == '\0') {
      in.remove_prefix(i + 2);
      return bytes;
    } else {
      return Corrupt();
    }
  }
  return Corrupt();
}

Result<AttributeValue> DecodeNumber(std::string_view& in) {
  if (in.empty()) return Corrupt();
  const uint8_t sign = static_cast<uint8_t>(in[0]);
  if (sign == kZero) {
    in.remove_prefix(1);
    return AttributeValue::NumberText("0");
  }
  if ((sign != kPositive && sign != kNegative) || in.size() < 3) return Corrupt();
  const bool negative = sign == kNegative;
  const uint8_t stored = static_cast<uint8_t>(in[1]);
  const int exponent = (negative ? 255 - stored : stored) + Number::kMinExponent;
  std::string digits;
  size_t i = 2;
  const uint8_t end = negative ? kNegativeDigitsEnd : kDigitsEnd;
  for (; i < in.size() && static_cast<uint8_t>(in[i]) != end; ++i) {
    const int d = negative ? 10 - static_cast<uint8_t>(in[i]) : static_cast<uint8_t>(in[i]) - 1;
    if (d < 0 || d > 9) return Corrupt();
    digits.push_back(static_cast<char>('0' + d));
  }
  // The encoder writes the significant digits alone: no zero at either end.
  if (i == in.size() || digits.empty() || digits.front() == '0' || digits.back() == '0') {
    return Corrupt();
  }
  in.remove_prefix(i + 1);
  // 0.ddd × 10^(exponent + 1) = d.dd × 10^exponent.
  Result<Number> number =
      Number::Parse((negative ? "-0." : "0.") + digits + "E" + std::to_string(exponent + 1));
  if (!number.ok()) return Corrupt();
  return AttributeValue::NumberText(number->ToString());
}

}  // namespace

void EncodeKeyValue(const AttributeValue& value, std::string& out) {
  if (value.type() == AttributeType::kN) {
    EncodeNumber(value.scalar(), out);
  } else {
    EscapeBytes(value.scalar(), out);
    out.push_back('\0');
    out.push_back('\0');
  }
}

std::string EncodeKeyValue(const AttributeValue& value) {
  std::string out;
  EncodeKeyValue(value, out);
  return out;
}

std::string EncodeBytesPrefix(std::string_view prefix) {
  std::string out;
  EscapeBytes(prefix, out);
  return out;
}

Result<AttributeValue> DecodeKeyValue(std::string_view& in, KeyAttributeType type) {
  if (type == KeyAttributeType::kN) return DecodeNumber(in);
  DDBD_ASSIGN_OR_RETURN(std::string bytes, DecodeBytes(in));
  return type == KeyAttributeType::kS ? AttributeValue::String(std::move(bytes))
                                      : AttributeValue::Binary(std::move(bytes));
}

std::string EncodeKey(const PrimaryKey& key) {
  std::string out = EncodeKeyValue(key.partition);
  if (key.sort) EncodeKeyValue(*key.sort, out);
  return out;
}

Result<PrimaryKey> DecodeKey(std::string_view bytes, const TableDef& table) {
  PrimaryKey key;
  DDBD_ASSIGN_OR_RETURN(key.partition, DecodeKeyValue(bytes, table.partition_key.type));
  if (table.sort_key) {
    DDBD_ASSIGN_OR_RETURN(AttributeValue sort, DecodeKeyValue(bytes, table.sort_key->type));
    key.sort = std::move(sort);
  }
  if (!bytes.empty()) return Corrupt();
  return key;
}

}  // namespace ddbd
