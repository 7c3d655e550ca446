// Key encodings. Strings and binaries: bytes with 0x00 escaped as 0x00 0xFF, terminated by
// 0x00 0x00. Numbers: a sign class byte, then for non-zero values the adjusted exponent and
// the significant digits, complemented for negatives so byte order is numeric order.
#include "storage/key_codec.h"

#include <xxhash.h>

#include "model/number.h"
#include "storage/binary_io.h"

namespace ddbd::storage {
namespace {

// Stored on disk: never renumber.
constexpr uint8_t kNegative = 0x01;
constexpr uint8_t kZero = 0x02;
constexpr uint8_t kPositive = 0x03;
constexpr uint8_t kDigitsEnd = 0x00;           // after positive digits (encoded 1..10)
constexpr uint8_t kNegativeDigitsEnd = 0xFF;   // after negative digits (encoded 10..1)

void EscapeBytes(std::string_view bytes, std::string& out) {
  for (char c : bytes) {
    out.push_back(c);
    if (c == '\0') out.push_back('\xFF');
  }
}

void EncodeBytes(std::string_view bytes, std::string& out) {
  EscapeBytes(bytes, out);
  out.push_back('\0');
  out.push_back('\0');
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
  uint8_t exponent = static_cast<uint8_t>(n.adjusted_exponent() - Number::kMinExponent);
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

}  // namespace

void EncodeKeyValue(const AttributeValue& value, std::string& out) {
  if (value.type() == AttributeType::kN) {
    EncodeNumber(value.scalar(), out);
  } else {
    EncodeBytes(value.scalar(), out);
  }
}

std::string EncodeBytesPrefix(std::string_view prefix) {
  std::string out;
  EscapeBytes(prefix, out);
  return out;
}

std::string EncodeKeyValue(const AttributeValue& value) {
  std::string out;
  EncodeKeyValue(value, out);
  return out;
}

uint64_t PartitionHash(std::string_view encoded_partition_key) {
  return XXH64(encoded_partition_key.data(), encoded_partition_key.size(), 0);
}

std::string TablePrefix(uint64_t table_id) {
  std::string out;
  ByteWriter(out).FixedBigEndian64(table_id);
  return out;
}

std::string HashPrefix(uint64_t table_id, uint64_t hash) {
  std::string out;
  ByteWriter writer(out);
  writer.FixedBigEndian64(table_id);
  writer.FixedBigEndian64(hash);
  return out;
}

std::string PartitionPrefix(uint64_t table_id, const AttributeValue& partition_key) {
  std::string encoded = EncodeKeyValue(partition_key);
  std::string out = HashPrefix(table_id, PartitionHash(encoded));
  out += encoded;
  return out;
}

std::string ItemKey(uint64_t table_id, const PrimaryKey& key) {
  std::string out = PartitionPrefix(table_id, key.partition);
  if (key.sort) EncodeKeyValue(*key.sort, out);
  return out;
}

std::string IndexPartitionPrefix(uint64_t index_id, const std::vector<AttributeValue>& partition,
                                 const std::vector<AttributeValue>& sort_prefix) {
  std::string encoded;
  for (const auto& value : partition) EncodeKeyValue(value, encoded);
  std::string out = HashPrefix(index_id, PartitionHash(encoded));
  out += encoded;
  for (const auto& value : sort_prefix) EncodeKeyValue(value, out);
  return out;
}

std::string IndexEntryKey(uint64_t index_id, const std::vector<AttributeValue>& partition,
                          const std::vector<AttributeValue>& sort, const PrimaryKey& table_key) {
  std::string out = IndexPartitionPrefix(index_id, partition, sort);
  EncodeKeyValue(table_key.partition, out);
  if (table_key.sort) EncodeKeyValue(*table_key.sort, out);
  return out;
}

std::string PrefixSuccessor(std::string_view prefix) {
  std::string out(prefix);
  while (!out.empty()) {
    if (static_cast<uint8_t>(out.back()) != 0xFF) {
      out.back() = static_cast<char>(static_cast<uint8_t>(out.back()) + 1);
      return out;
    }
    out.pop_back();
  }
  return out;
}

}  // namespace ddbd::storage
