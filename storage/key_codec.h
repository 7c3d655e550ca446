// Order-preserving, self-delimiting encodings of key values, and the RocksDB keys built from
// them (layout in storage/FORMAT.md). Entry points: EncodeKeyValue, PartitionHash,
// ItemKey, PartitionPrefix, TablePrefix.
//
// The byte order of EncodeKeyValue equals DynamoDB's order for values of one type: strings
// and binaries by unsigned bytes, numbers numerically. Every encoding is self-delimiting, so
// a partition key can be followed by a sort key and a prefix never matches a longer key.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/attribute_value.h"
#include "model/table_def.h"

namespace ddbd::storage {

// REQUIRES: `value` is an S, N (canonical) or B value.
void EncodeKeyValue(const AttributeValue& value, std::string& out);
std::string EncodeKeyValue(const AttributeValue& value);

// The encoding of a string or binary value's leading bytes: every EncodeKeyValue of a value
// that starts with `prefix` starts with this.
std::string EncodeBytesPrefix(std::string_view prefix);

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
