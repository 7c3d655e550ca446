// The RocksDB keys of items and index entries (layout in storage/FORMAT.md), built from the
// order-preserving, self-delimiting key value encodings of model/key_encoding.h.
// Entry points: PartitionHash, ItemKey, PartitionPrefix, TablePrefix, IndexEntryKey.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/attribute_value.h"
#include "model/key_encoding.h"
#include "model/table_def.h"

namespace ddbd::storage {

// A partition's position in Scan order: 64-bit hash of the encoded partition key.
uint64_t PartitionHash(std::string_view encoded_partition_key);

// table id ‖ hash64(pk) ‖ enc(pk): every item of one partition starts with this.
std::string PartitionPrefix(uint64_t table_id, const AttributeValue& partition_key);
// PartitionPrefix ‖ enc(sk).
std::string ItemKey(uint64_t table_id, const PrimaryKey& key);
// table id: every item of one table starts with this.
std::string TablePrefix(uint64_t table_id);
// table id ‖ hash (8 bytes each): where a hash range starts.
std::string HashPrefix(uint64_t table_id, uint64_t hash);
// The length of HashPrefix, shared by every item of a partition: the items family's prefix
// for its filters (database_open.cc).
inline constexpr size_t kItemKeyPrefixBytes = 16;

// index id ‖ hash64(index pk) ‖ enc(index pk) ‖ enc(index sk) ‖ enc(table pk) ‖ enc(table sk):
// the key of one index entry. Entries of one index partition are ordered by index sort key,
// then by the table key (DynamoDB's order for equal index sort keys).
// Multi-attribute keys concatenate their attributes' encodings (each self-delimiting), so
// tuples order attribute by attribute; single-attribute keys encode as ItemKey does.
std::string IndexEntryKey(uint64_t index_id, const std::vector<AttributeValue>& partition,
                          const std::vector<AttributeValue>& sort, const PrimaryKey& table_key);
// index id ‖ hash64 ‖ enc(partition attributes…) ‖ enc(sort attributes…): the entries of one
// index partition (optionally narrowed by leading sort attributes) start with this.
std::string IndexPartitionPrefix(uint64_t index_id, const std::vector<AttributeValue>& partition,
                                 const std::vector<AttributeValue>& sort_prefix);

// The smallest key greater than every key starting with `prefix`; empty if none exists.
std::string PrefixSuccessor(std::string_view prefix);

}  // namespace ddbd::storage
