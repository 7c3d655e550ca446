// The TableDescription structure returned by CreateTable, DescribeTable, UpdateTable and
// DeleteTable, in one place so that every operation reports a table the same way.
#pragma once

#include <functional>
#include <optional>

#include "model/table_def.h"
#include "storage/database.h"
#include "wire/json_writer.h"

namespace ddbd::server::ops {

// Statistics of an index by id.
using IndexStatsFn = std::function<storage::TableStats(uint64_t index_id)>;

// Writes the TableDescription object. `status` overrides the stored status (DeleteTable
// reports DELETING).
void WriteTableDescription(wire::JsonWriter& out, const TableDef& table,
                           const storage::TableStats& stats, const IndexStatsFn& index_stats,
                           std::optional<TableStatus> status = std::nullopt);

std::string_view TableStatusName(TableStatus status);
std::string_view ReplicaStatusName(ReplicaStatus status);

// A table's KeySchema array ([{AttributeName, KeyType}], HASH first).
void WriteKeySchema(wire::JsonWriter& out, const TableDef& table);

}  // namespace ddbd::server::ops
