// What RestoreTableFromBackup and RestoreTableToPointInTime share: the target table's name
// and the overrides of its definition (restore_request.cc).
#pragma once

#include <optional>
#include <string_view>

#include "model/result.h"
#include "model/table_def.h"
#include "server/ops/index_declarations.h"
#include "server/ops/table_settings.h"
#include "wire/constraint_errors.h"
#include "wire/json_reader.h"

namespace ddbd::server::ops {

struct RestoreTargetInput {
  std::string_view table_name;
  std::optional<BillingMode> billing_override;
  std::optional<std::vector<IndexInput>> gsi_override;  // the restored table's GSIs
  std::optional<std::vector<IndexInput>> lsi_override;  // and LSIs, when given
  std::optional<ThroughputInput> throughput_override;
  std::optional<OnDemandInput> on_demand_override;
  std::optional<SseDescription> sse_override;
};

// Reads TargetTableName and the overrides (BillingModeOverride,
// GlobalSecondaryIndexOverride, LocalSecondaryIndexOverride, ProvisionedThroughputOverride,
// OnDemandThroughputOverride, SSESpecificationOverride); violations go to `errors`.
Result<RestoreTargetInput> ReadRestoreTarget(wire::JsonObject body, std::string_view region,
                                             wire::ConstraintErrors& errors);
// Applies the overrides to the restored definition (backups::RestoredDefinition, made without
// a billing override), checked as CreateTable checks the same settings: an index override
// replaces the backup's indexes of that kind (any subset of them, or new ones on its
// attributes), a throughput override sets the provisioned capacity (and lets an on-demand
// backup be restored as PROVISIONED).
Status ApplyRestoreOverrides(const RestoreTargetInput& target, int64_t now_ms,
                             TableDef& definition);

// The answer of a restore: {"TableDescription": …} of the new table, CREATING and empty.
std::string RenderRestoringTable(const TableDef& table);

}  // namespace ddbd::server::ops
