// The TableDescription structure returned by CreateTable, DescribeTable, UpdateTable and
// DeleteTable, in one place so that every operation reports a table the same way.
#pragma once

#include <optional>

#include "model/table_def.h"
#include "server/wire/json_writer.h"
#include "storage/database.h"

namespace ddbd::server::ops {

// Writes the TableDescription object. `status` overrides the stored status (DeleteTable
// reports DELETING).
void WriteTableDescription(wire::JsonWriter& out, const TableDef& table,
                           const storage::TableStats& stats,
                           std::optional<TableStatus> status = std::nullopt);

std::string_view TableStatusName(TableStatus status);

}  // namespace ddbd::server::ops
