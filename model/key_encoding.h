// The order-preserving bytes of key values: for values of one type, the byte order of their
// encodings equals DynamoDB's order (strings and binaries by unsigned bytes, numbers
// numerically), and every encoding is self-delimiting, so a partition key can be followed by
// a sort key and no encoding is a prefix of another. Storage builds its RocksDB keys from
// these; the in-memory vector indexes use them as ordered entry identities.
//
// Layout (storage/FORMAT.md, "Items"):
//   S, B: the bytes, every 0x00 written as 0x00 0xFF, then 0x00 0x00.
//   N:    0x02 for zero; positive 0x03, exponent + 130 as one byte, each digit d as d + 1,
//         0x00; negative 0x01, 255 − (exponent + 130), each digit as 10 − d, 0xFF.
//
// Entry points: EncodeKeyValue, EncodeBytesPrefix, DecodeKeyValue, EncodeKey, DecodeKey.
#pragma once

#include <string>
#include <string_view>

#include "model/attribute_value.h"
#include "model/primary_key.h"
#include "model/result.h"
#include "model/table_def.h"

namespace ddbd {

// REQUIRES: `value` is an S, N (canonical) or B value.
void EncodeKeyValue(const AttributeValue& value, std::string& out);
std::string EncodeKeyValue(const AttributeValue& value);

// The encoding of a string or binary value's leading bytes: every EncodeKeyValue of a value
// that starts with `prefix` starts with this.
std::string EncodeBytesPrefix(std::string_view prefix);

// Reads one encoded value of `type` from the front of `in` and advances past it; fails on
// bytes no EncodeKeyValue produced.
Result<AttributeValue> DecodeKeyValue(std::string_view& in, KeyAttributeType type);

// A table key: enc(partition) ‖ enc(sort), ordered as DynamoDB orders keys.
std::string EncodeKey(const PrimaryKey& key);
// REQUIRES nothing of `bytes`; fails when they are not EncodeKey of `table`'s key schema.
Result<PrimaryKey> DecodeKey(std::string_view bytes, const TableDef& table);

}  // namespace ddbd
