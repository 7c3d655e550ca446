// VectorIndexUpdates of UpdateTable (spec/vector-search.md §3): creating a vector index on an
// existing table (CREATING and Backfilling while the items already there are indexed, then
// ACTIVE) and deleting one. There is no Update action: vector indexes are immutable.
// Entry points: ReadVectorIndexUpdates, ApplyVectorIndexUpdates.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/table_def.h"
#include "server/op_context.h"
#include "server/ops/index_updates.h"
#include "server/ops/vector_declarations.h"

namespace ddbd::server::ops {

struct VectorIndexUpdateInput {
  std::optional<VectorIndexInput> create;
  std::optional<std::string> delete_name;
};

Result<std::vector<VectorIndexUpdateInput>> ReadVectorIndexUpdates(wire::JsonObject body,
                                                                   wire::ConstraintErrors& errors);

// Applies the updates to `table` (a copy of the current definition, already carrying this
// request's billing mode); `new_definitions` are the request's AttributeDefinitions.
// Created and deleted indexes are added to `changes`.
Status ApplyVectorIndexUpdates(OpContext& ctx, const std::vector<VectorIndexUpdateInput>& updates,
                               const std::vector<AttributeDefinition>& new_definitions,
                               TableDef& table, IndexChanges& changes);

// "Attributes cannot be redefined…": a vector attribute that is a key of the table or of a
// GSI, or the reverse. `vector_first` puts the vector index's schema as the existing one.
// "Attributes cannot be redefined ..." for key attribute `requested` that the table already
// uses with another type as `existing`.
Error KeyRedefined(const KeyElement& existing, std::string_view existing_key_type,
                   const KeyElement& requested, std::string_view requested_key_type);
Error AttributeRedefined(const KeyElement& key, std::string_view key_type, const VectorSpec& vector,
                         bool vector_first);

}  // namespace ddbd::server::ops
