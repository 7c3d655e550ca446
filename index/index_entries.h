// Secondary-index rules: which items an index holds (those with its key attributes — sparse
// indexes), what it projects, the checks a write must pass for the table's index keys, and
// the write units index maintenance costs. Entry points: EntryFor, Project, Projects,
// CheckIndexKeys, SameProjection, IndexWriteCapacity. (EntriesPart writes the entries.)
#pragma once

#include <functional>
#include <map>
#include <optional>

#include "model/attribute_value.h"
#include "model/result.h"
#include "model/table_def.h"
#include "storage/write.h"

namespace ddbd::index {

// The entry `index` holds for `item`, or nullopt when the item lacks (or has the wrong type
// for) one of the index's key attributes. Without `with_projection` the projected attributes
// are measured but not copied.
std::optional<storage::IndexEntry> EntryFor(const TableDef& table, const IndexDef& index,
                                            const AttributeMap& item, bool with_projection = true);

// The attributes of `item` the index projects (table and index keys always).
Item Project(const TableDef& table, const IndexDef& index, const AttributeMap& item);

// Whether `attribute` is projected into `index`.
bool Projects(const TableDef& table, const IndexDef& index, std::string_view attribute);

// DynamoDB's checks of index key attributes present in an item being written: the declared
// type, non-empty S/B values, key size limits.
Status CheckIndexKeys(const TableDef& table, const AttributeMap& item);

// Whether `index` projects the same attributes, with equal values, from `before` and `after`.
bool SameProjection(const TableDef& table, const IndexDef& index, const AttributeMap& before,
                    const AttributeMap& after);

// Write units one item write consumes on each GSI and LSI (DynamoDB's rules): an entry put
// or removed costs its size in 1 KB units; a changed index key costs both (delete and put);
// a changed projection the new entry's units; an index the write leaves alone, nothing.
struct IndexWriteUnits {
  std::map<std::string, double> global;  // index name → units
  std::map<std::string, double> local;
};
IndexWriteUnits IndexWriteCapacity(const TableDef& table, const std::optional<Item>& old_item,
                                   const std::optional<Item>& new_item);

}  // namespace ddbd::index
