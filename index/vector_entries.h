// Vector-index rules on the item side (spec/vector-search.md §5): which items a vector index
// holds, what its entry stores, and the checks a write must pass for the attributes of the
// table's vector indexes. Entry points: VectorEntryFor, CheckVectorAttributes, ToFloat32,
// VectorEntrySize, VectorWriteBytes, VectorValue (entries are decoded by vector/entry_codec).
//
// A vector index's entry is an encoded item: the projected attributes (table keys, search
// schema attributes, and what the projection names), with the vector attribute always kept —
// as a binary of little-endian 32-bit floats — so the in-memory index can be rebuilt from
// the entries alone.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/attribute_value.h"
#include "model/result.h"
#include "model/table_def.h"
#include "storage/write.h"

namespace ddbd::index {

// The nearest 32-bit float to a canonical DynamoDB number, or nullopt when that is not finite
// (the value lies outside ±3.4028235E38). Values too small for a float become 0.
std::optional<float> ToFloat32(std::string_view canonical_number);

// The index's vector held by `value`, or nullopt when `value` is not a valid one (not a list
// of `dimensions` numbers, each within the float range).
std::optional<std::vector<float>> VectorOf(const VectorSpec& spec, const AttributeValue& value);

// DynamoDB's checks of the vector and search-schema attributes a write sets, index by index
// in ascending name order. `sets(name)` tells whether the write sets attribute `name` (a put
// sets them all; an update only those it changes).
Status CheckVectorAttributes(const TableDef& table, const AttributeMap& item,
                             const std::function<bool(std::string_view)>& sets);
inline bool EveryAttribute(std::string_view) { return true; }

// The entry vector index `index` holds for `item`, or nullopt when the item carries no valid
// vector or lacks the index's HASH attribute.
std::optional<storage::IndexEntry> VectorEntryFor(const TableDef& table, const IndexDef& index,
                                                  const AttributeMap& item);

// Whether the vector index projects `attribute` into its entries.
bool VectorProjects(const TableDef& table, const IndexDef& index, std::string_view attribute);

// The metered size of an entry (§9.2, before the 1 KB minimum): 4 bytes per dimension, the
// vector attribute's name, and every other projected attribute by the item-size measure.
size_t VectorEntrySize(const IndexDef& index, const AttributeMap& projected);

// The vector write metering of one item write (§9.2): per vector index whose entry the write
// adds, removes or changes, the metered bytes (each entry at least 1 KB; the larger of the
// two when an entry is replaced in place, both when it moves to another partition).
std::map<std::string, int64_t> VectorWriteBytes(const TableDef& table,
                                                const std::optional<Item>& old_item,
                                                const std::optional<Item>& new_item);

// A vector as DynamoDB returns it from an index: a list of numbers, each the shortest decimal
// that reads back as the same float, never with an exponent, ".0" on integral values.
AttributeValue VectorValue(const std::vector<float>& vector);
std::string FormatFloat32(float value);

}  // namespace ddbd::index
