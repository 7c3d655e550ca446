// EntryChange: one committed change of a vector index's stored entries, which the in-memory
// vector indexes apply (VectorIndexes::Apply) so that searches see exactly what is stored.
#pragma once

#include <memory>
#include <optional>

#include "model/attribute_value.h"
#include "model/primary_key.h"
#include "model/table_def.h"

namespace ddbd::vector {

struct EntryChange {
  std::shared_ptr<const TableDef> table;  // the definition the entry was derived from
  const IndexDef* index = nullptr;        // in `table`
  PrimaryKey key;                         // the item's table key: the entry's identity
  std::optional<Item> entry;              // the new entry; nullopt when it was removed
};

}  // namespace ddbd::vector
