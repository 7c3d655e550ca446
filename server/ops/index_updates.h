// GlobalSecondaryIndexUpdates of UpdateTable: creating a GSI on an existing table (CREATING
// and Backfilling while a backfill on the background executor writes the entries of the items
// already there, then ACTIVE), deleting one (reported DELETING, then gone), and changing a GSI's
// throughput. Entry points: ReadIndexUpdates, ApplyIndexUpdates, StartBackfill.
#pragma once

#include <optional>
#include <vector>

#include "model/table_def.h"
#include "server/op_context.h"
#include "server/ops/index_declarations.h"

namespace ddbd::server::ops {

struct IndexUpdateInput {
  enum class Kind : uint8_t { kCreate, kUpdate, kDelete } kind = Kind::kCreate;
  IndexInput create;                       // kCreate
  std::string index_name;                  // kUpdate, kDelete
  std::optional<Throughput> throughput;    // kUpdate
  std::optional<OnDemandInput> on_demand;  // kUpdate
};

Result<std::vector<IndexUpdateInput>> ReadIndexUpdates(wire::JsonObject body,
                                                       wire::ConstraintErrors& errors);

// Applies the updates to `table` (a copy of the current definition); new attribute
// definitions come with a create. Returns the ids of indexes to backfill and the indexes
// being deleted (to report as DELETING and then drop).
struct IndexChanges {
  std::vector<uint64_t> created;
  std::vector<IndexDef> deleted;
};
// `vector_actions`: the vector indexes the same request creates or deletes, which count
// toward the one online index operation a table allows at a time.
Result<IndexChanges> ApplyIndexUpdates(OpContext& ctx, const std::vector<IndexUpdateInput>& updates,
                                       const std::vector<AttributeDefinition>& new_definitions,
                                       size_t vector_actions, TableDef& table);

// The table's attribute definitions plus those a request adds for a new index; a different
// type for a known attribute is refused.
Result<std::vector<AttributeDefinition>> MergeDefinitions(
    const std::vector<AttributeDefinition>& existing,
    const std::vector<AttributeDefinition>& added);

// LimitExceededException: one index created or deleted at a time per table.
Error OneOnlineIndexAtATimeError();

// Backfills a created index in the background and marks it ACTIVE when done.
void StartBackfill(OpContext& ctx, uint64_t table_id, uint64_t index_id);

}  // namespace ddbd::server::ops
