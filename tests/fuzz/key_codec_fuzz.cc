// Fuzz target: the order-preserving key encoding (model/key_encoding) and the storage keys
// built from it (storage/internal/key_codec). Checks the contracts on two key values made
// from the input — two S, two B or two N values (numbers through Number::Parse, as requests
// give them):
//   order:      memcmp order of the encodings == DynamoDB's order of the values;
//   delimiting: neither encoding of two different values is a prefix of the other;
//   round trip: DecodeKeyValue reads each encoding back to its value, consuming it exactly;
//   prefixes:   ItemKey(pk, sk) starts with PartitionPrefix(pk), EncodeBytesPrefix(p) starts
//               the encoding of every S/B value starting with p, and PrefixSuccessor(prefix)
//               sorts after every key with that prefix;
//   decoding:   DecodeKeyValue of the raw input bytes, as any type, fails cleanly or yields a
//               value whose encoding is exactly the bytes it consumed.
// Input: one type byte, then the two values separated by the first 0xFF byte.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "expressions/evaluator.h"
#include "model/key_encoding.h"
#include "model/number.h"
#include "storage/internal/key_codec.h"

namespace {

using namespace ddbd;

std::optional<AttributeValue> MakeValue(uint8_t type, std::string_view text) {
  switch (type % 3) {
    case 0:
      return AttributeValue::String(std::string(text));
    case 1:
      return AttributeValue::Binary(std::string(text));
    default: {
      auto number = Number::Parse(text);
      if (!number.ok()) return std::nullopt;
      return AttributeValue::NumberText(number->ToString());
    }
  }
}

int Sign(int v) { return (v > 0) - (v < 0); }

void Check(bool ok) {
  if (!ok) std::abort();
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

KeyAttributeType KeyTypeOf(const AttributeValue& value) {
  switch (value.type()) {
    case AttributeType::kS:
      return KeyAttributeType::kS;
    case AttributeType::kN:
      return KeyAttributeType::kN;
    default:
      return KeyAttributeType::kB;
  }
}

void CheckRoundTrip(const std::string& encoding, const AttributeValue& value) {
  std::string_view in = encoding;
  Result<AttributeValue> decoded = DecodeKeyValue(in, KeyTypeOf(value));
  Check(decoded.ok() && *decoded == value && in.empty());
}

void CheckDecoderOnRawBytes(std::string_view bytes) {
  for (KeyAttributeType type : {KeyAttributeType::kS, KeyAttributeType::kN, KeyAttributeType::kB}) {
    std::string_view in = bytes;
    Result<AttributeValue> decoded = DecodeKeyValue(in, type);
    if (!decoded.ok()) continue;
    const std::string_view consumed = bytes.substr(0, bytes.size() - in.size());
    Check(EncodeKeyValue(*decoded) == consumed);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const size_t split = std::min(rest.find('\xff'), rest.size());
  const auto a = MakeValue(data[0], rest.substr(0, split));
  const auto b = MakeValue(data[0], rest.substr(std::min(split + 1, rest.size())));
  if (!a || !b) return 0;
  const std::string ea = EncodeKeyValue(*a);
  const std::string eb = EncodeKeyValue(*b);

  CheckRoundTrip(ea, *a);
  CheckRoundTrip(eb, *b);
  CheckDecoderOnRawBytes(rest);

  const std::optional<int> order = expressions::ValueOrder(*a, *b);
  Check(order.has_value());
  Check(Sign(ea.compare(eb)) == Sign(*order));
  if (*a != *b) Check(!StartsWith(ea, eb) && !StartsWith(eb, ea));

  // Every item of a partition starts with its prefix and sorts before the prefix's successor.
  const std::string partition = storage::PartitionPrefix(1, *a);
  const std::string item_key = storage::ItemKey(1, PrimaryKey{*a, *b});
  Check(StartsWith(item_key, partition));
  const std::string past_partition = storage::PrefixSuccessor(partition);
  Check(past_partition.empty() || item_key < past_partition);

  if (a->type() != AttributeType::kN) {
    const std::string_view value = a->scalar();
    const std::string_view prefix = value.substr(0, value.size() / 2);
    Check(StartsWith(ea, EncodeBytesPrefix(prefix)));
    const std::string prefix_key = EncodeBytesPrefix(prefix);
    const std::string after = storage::PrefixSuccessor(prefix_key);
    Check(after.empty() || ea < after);
  }
  return 0;
}
