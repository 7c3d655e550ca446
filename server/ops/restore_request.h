// What RestoreTableFromBackup and RestoreTableToPointInTime share: the target table's name
// and the overrides of its definition (restore_request.cc).
#pragma once

#include <optional>
#include <string_view>

#include "model/result.h"
#include "model/table_def.h"
#include "wire/constraint_errors.h"
#include "wire/json_reader.h"

namespace ddbd::server::ops {

struct RestoreTargetInput {
  std::string_view table_name;
  std::optional<BillingMode> billing_override;
};

// Reads TargetTableName and BillingModeOverride; violations go to `errors`.
Result<RestoreTargetInput> ReadRestoreTarget(wire::JsonObject body, wire::ConstraintErrors& errors);
// ValidationException for the overrides not supported yet (GSIs, LSIs, throughput, SSE).
Status RefuseUnsupportedOverrides(wire::JsonObject body);

// The answer of a restore: {"TableDescription": …} of the new table, CREATING and empty.
std::string RenderRestoringTable(const TableDef& table);

}  // namespace ddbd::server::ops
