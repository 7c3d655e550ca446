// The operations of global tables version 2017.11.29 (Legacy): CreateGlobalTable,
// UpdateGlobalTable, DescribeGlobalTable, DescribeGlobalTableSettings,
// UpdateGlobalTableSettings and ListGlobalTables. DynamoDB no longer creates global tables of
// that version — CreateGlobalTable (and UpdateGlobalTable's Create) is refused with its
// recommendation to use version 2019.11.21, the others find no such global table and
// ListGlobalTables lists none — and ddbd answers as it does, so that code still relying on
// the legacy API fails here as it would in AWS. Global tables are made with UpdateTable's
// ReplicaUpdates (replica_changes.h).
#include "server/ops/common.h"
#include "server/ops/ops.h"

namespace ddbd::server::ops {
namespace {

Error LegacyVersionRefused() {
  return Error::Validation(
      "One or more parameter values were invalid: DynamoDB global tables version 2017.11.29 is "
      "not supported. We recommend using DynamoDB global tables version 2019.11.21, instead of "
      "version 2017.11.29 (Legacy).");
}

// GlobalTableName: required, a table name.
Result<std::string_view> ReadGlobalTableName(wire::JsonObject body,
                                             wire::ConstraintErrors& errors) {
  DDBD_ASSIGN_OR_RETURN(auto name, wire::GetString(body, "GlobalTableName"));
  if (!name) {
    errors.NotNull("globalTableName");
    return std::string_view();
  }
  errors.TableName(*name, "globalTableName");
  return *name;
}

Result<std::string_view> ReadOnlyGlobalTableName(wire::JsonObject body) {
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(std::string_view name, ReadGlobalTableName(body, errors));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  return name;
}

Error GlobalTableNotFound(std::string_view name) {
  return Error::GlobalTableNotFound("Global table not found: Global table with name: '" +
                                    std::string(name) + "' does not exist.");
}

Error GlobalTableSettingsNotFound(std::string_view name) {
  return Error::GlobalTableNotFound("Global table with name: '" + std::string(name) +
                                    "' does not exist.");
}

// ReplicationGroup / ReplicaUpdates: a list whose entries name regions; whether any asks to
// create a replica.
Result<bool> ReadReplicaList(wire::JsonObject body, std::string_view member, std::string_view path,
                             wire::ConstraintErrors& errors) {
  DDBD_ASSIGN_OR_RETURN(auto list, wire::GetArray(body, member));
  if (!list) {
    errors.NotNull(path);
    return false;
  }
  bool creates = false;
  for (wire::JsonValue element : *list) {
    DDBD_ASSIGN_OR_RETURN(wire::JsonObject entry, wire::AsObject(element));
    creates = creates || wire::Member(entry, "Create") || wire::Member(entry, "RegionName");
  }
  return creates;
}

}  // namespace

Result<std::string> CreateGlobalTable(OpContext&, const Request& req) {
  wire::ConstraintErrors errors;
  DDBD_RETURN_IF_ERROR(OutcomeOf(ReadGlobalTableName(req.body, errors)));
  DDBD_RETURN_IF_ERROR(
      OutcomeOf(ReadReplicaList(req.body, "ReplicationGroup", "replicationGroup", errors)));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  return LegacyVersionRefused();
}

Result<std::string> UpdateGlobalTable(OpContext&, const Request& req) {
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(std::string_view name, ReadGlobalTableName(req.body, errors));
  DDBD_ASSIGN_OR_RETURN(bool creates,
                        ReadReplicaList(req.body, "ReplicaUpdates", "replicaUpdates", errors));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  DDBD_ASSIGN_OR_RETURN(auto updates, wire::GetArray(req.body, "ReplicaUpdates"));
  if (updates->size() == 0) {
    return Error::Validation("One or more parameter values were invalid");
  }
  if (creates) return LegacyVersionRefused();
  return GlobalTableNotFound(name);
}

Result<std::string> DescribeGlobalTable(OpContext&, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(std::string_view name, ReadOnlyGlobalTableName(req.body));
  return GlobalTableNotFound(name);
}

Result<std::string> DescribeGlobalTableSettings(OpContext&, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(std::string_view name, ReadOnlyGlobalTableName(req.body));
  return GlobalTableSettingsNotFound(name);
}

Result<std::string> UpdateGlobalTableSettings(OpContext&, const Request& req) {
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(std::string_view name, ReadGlobalTableName(req.body, errors));
  DDBD_ASSIGN_OR_RETURN(auto write_units,
                        wire::GetLong(req.body, "GlobalTableProvisionedWriteCapacityUnits"));
  if (write_units && *write_units < 1) {
    errors.ValueAtLeast(std::to_string(*write_units), "globalTableProvisionedWriteCapacityUnits",
                        1);
  }
  DDBD_RETURN_IF_ERROR(
      OutcomeOf(ReadEnum(req.body, "GlobalTableBillingMode", "globalTableBillingMode",
                         {"PROVISIONED", "PAY_PER_REQUEST"}, errors)));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  return GlobalTableSettingsNotFound(name);
}

Result<std::string> ListGlobalTables(OpContext&, const Request& req) {
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(auto start, wire::GetString(req.body, "ExclusiveStartGlobalTableName"));
  if (start) errors.TableName(*start, "exclusiveStartGlobalTableName");
  DDBD_ASSIGN_OR_RETURN(auto limit, wire::GetLong(req.body, "Limit"));
  if (limit && *limit < 1) errors.ValueAtLeast(std::to_string(*limit), "limit", 1);
  DDBD_RETURN_IF_ERROR(OutcomeOf(wire::GetString(req.body, "RegionName")));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  return std::string(R"({"GlobalTables":[]})");
}

}  // namespace ddbd::server::ops
