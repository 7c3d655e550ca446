// PrimaryKey: the identity of one item inside its table — the partition key value and, for
// tables with a sort key, the sort key value — with DynamoDB's order and a hash, so that keys
// can index hash maps (a batch's duplicate check, the in-memory vector indexes) without any
// storage encoding. ItemIdentity adds the table, for checks that span tables.
//
// Entry points: PrimaryKey, CompareKeyValues, PrimaryKeyHash, ItemIdentity.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "model/attribute_value.h"

namespace ddbd {

// Values are scalars of the schema's types (validated before they get here).
struct PrimaryKey {
  AttributeValue partition;
  std::optional<AttributeValue> sort;
  friend bool operator==(const PrimaryKey&, const PrimaryKey&) = default;
};

// DynamoDB's order of two key values: by type (B, N, S — the order of their type tags is
// never compared across one key attribute, whose type the schema fixes), then S and B by
// unsigned bytes, N numerically. REQUIRES: both are S, N (canonical) or B values.
std::strong_ordering CompareKeyValues(const AttributeValue& a, const AttributeValue& b);
// Partition value, then sort value (a missing sort value first).
std::strong_ordering operator<=>(const PrimaryKey& a, const PrimaryKey& b);

struct PrimaryKeyHash {
  size_t operator()(const PrimaryKey& key) const;
};

// One item of one table (a table's storage id and the item's key).
struct ItemIdentity {
  uint64_t table_id = 0;
  PrimaryKey key;
  friend bool operator==(const ItemIdentity&, const ItemIdentity&) = default;
};

struct ItemIdentityHash {
  size_t operator()(const ItemIdentity& identity) const;
};

}  // namespace ddbd
