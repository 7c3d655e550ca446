// RocksDB keys of items and index entries, built from the order-preserving key value
// encodings of model/key_encoding.h.
#include "storage/internal/key_codec.h"

#include <xxhash.h>

#include "storage/internal/binary_io.h"

namespace ddbd::storage {

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
