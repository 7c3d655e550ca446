// The target of a restore, read the same way by both restore operations.
#include "server/ops/restore_request.h"

#include <string>

#include "server/ops/common.h"
#include "server/ops/table_description.h"

namespace ddbd::server::ops {

Result<RestoreTargetInput> ReadRestoreTarget(wire::JsonObject body,
                                             wire::ConstraintErrors& errors) {
  RestoreTargetInput input;
  DDBD_ASSIGN_OR_RETURN(auto target, wire::GetString(body, "TargetTableName"));
  if (!target) {
    errors.NotNull("targetTableName");
  } else {
    errors.TableName(*target, "targetTableName");
    input.table_name = *target;
  }
  DDBD_ASSIGN_OR_RETURN(auto mode, ReadEnum(body, "BillingModeOverride", "billingModeOverride",
                                            {"PROVISIONED", "PAY_PER_REQUEST"}, errors));
  if (mode) {
    input.billing_override =
        *mode == "PAY_PER_REQUEST" ? BillingMode::kPayPerRequest : BillingMode::kProvisioned;
  }
  return input;
}

Status RefuseUnsupportedOverrides(wire::JsonObject body) {
  for (std::string_view member : {"GlobalSecondaryIndexOverride", "LocalSecondaryIndexOverride",
                                  "ProvisionedThroughputOverride", "OnDemandThroughputOverride",
                                  "SSESpecificationOverride"}) {
    if (wire::Member(body, member)) {
      return Error::Validation(std::string(member) +
                               " is not supported by this version of ddbd yet");
    }
  }
  return OkStatus();
}

std::string RenderRestoringTable(const TableDef& table) {
  wire::JsonWriter out;
  out.BeginObject().Key("TableDescription");
  WriteTableDescription(out, table, storage::TableStats{},
                        [](uint64_t) { return storage::TableStats{}; });
  out.EndObject();
  return out.Take();
}

}  // namespace ddbd::server::ops
