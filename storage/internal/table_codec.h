// The catalog record of a table: TableDef as a sequence of tagged fields, so fields can be
// added later without rewriting old records (unknown tags are skipped on read).
// Entry points: EncodeTableDef, DecodeTableDef.
#pragma once

#include <string>
#include <string_view>

#include "model/result.h"
#include "model/table_def.h"

namespace ddbd::storage {

std::string EncodeTableDef(const TableDef& table);
Result<TableDef> DecodeTableDef(std::string_view bytes);

}  // namespace ddbd::storage
