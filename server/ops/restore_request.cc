// The target of a restore, read the same way by both restore operations.
#include "server/ops/restore_request.h"

#include <string>

#include "server/ops/common.h"
#include "server/ops/table_description.h"

namespace ddbd::server::ops {

Result<RestoreTargetInput> ReadRestoreTarget(wire::JsonObject body, std::string_view region,
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
  DDBD_ASSIGN_OR_RETURN(input.gsi_override,
                        ReadIndexes(body, "GlobalSecondaryIndexOverride", false, errors));
  DDBD_ASSIGN_OR_RETURN(input.lsi_override,
                        ReadIndexes(body, "LocalSecondaryIndexOverride", true, errors));
  DDBD_ASSIGN_OR_RETURN(input.throughput_override,
                        ReadThroughput(body, errors, "ProvisionedThroughputOverride"));
  DDBD_ASSIGN_OR_RETURN(input.on_demand_override,
                        ReadOnDemandThroughput(body, "OnDemandThroughputOverride"));
  DDBD_ASSIGN_OR_RETURN(input.sse_override,
                        ReadSse(body, region, errors, "SSESpecificationOverride"));
  return input;
}

Status ApplyRestoreOverrides(const RestoreTargetInput& target, int64_t now_ms,
                             TableDef& definition) {
  const BillingMode mode = target.billing_override.value_or(definition.billing_mode);
  if (target.throughput_override) {
    DDBD_RETURN_IF_ERROR(CheckThroughputForMode(mode, target.throughput_override));
  } else if (mode == BillingMode::kProvisioned &&
             definition.billing_mode != BillingMode::kProvisioned) {
    return Error::Validation(
        "ProvisionedThroughputOverride is required to restore a PAY_PER_REQUEST backup as "
        "PROVISIONED");
  }
  if (mode != definition.billing_mode) {
    definition.billing_mode = mode;
    definition.billing_mode_updated_ms = now_ms;
    definition.throughput = {};
  }
  if (target.throughput_override) {
    definition.throughput.read_capacity_units = *target.throughput_override->read;
    definition.throughput.write_capacity_units = *target.throughput_override->write;
  }
  if (target.on_demand_override) {
    DDBD_RETURN_IF_ERROR(
        CheckOnDemand(*target.on_demand_override, mode, OnDemandSite::kCreateTable));
    ApplyOnDemand(*target.on_demand_override, definition.on_demand);
  }
  if (target.sse_override) definition.sse = *target.sse_override;
  if (!target.gsi_override && !target.lsi_override) return OkStatus();
  // An empty override drops every index of its kind ("exclude some or all of the indexes"),
  // which CreateTable's check of a declared list would refuse.
  auto declared = [](const std::optional<std::vector<IndexInput>>& indexes) {
    return indexes && !indexes->empty() ? indexes : std::nullopt;
  };
  DDBD_ASSIGN_OR_RETURN(
      std::vector<IndexDef> overridden,
      CheckIndexes(definition.partition_key, definition.sort_key, definition.attribute_definitions,
                   mode, declared(target.gsi_override), declared(target.lsi_override)));
  std::erase_if(definition.indexes, [&](const IndexDef& index) {
    if (index.IsVector()) return false;
    return index.local ? target.lsi_override.has_value() : target.gsi_override.has_value();
  });
  for (IndexDef& index : overridden) {
    index.status = IndexStatus::kActive;
    definition.indexes.push_back(std::move(index));
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
