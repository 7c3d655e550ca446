// Reading and checking UpdateTable's global-table members.
#include "server/ops/replica_requests.h"

#include <algorithm>
#include <set>

#include "replication/regions.h"
#include "server/ops/common.h"

namespace ddbd::server::ops {
namespace {

using Kind = ReplicaActionInput::Kind;

// {"<member>": {"<units>": n}}: the override's units (at least 1), or nullopt.
Result<std::optional<int64_t>> ReadUnits(wire::JsonObject object, std::string_view member,
                                         std::string_view units, const std::string& path,
                                         wire::ConstraintErrors& errors) {
  DDBD_ASSIGN_OR_RETURN(auto override_object, wire::GetObject(object, member));
  if (!override_object) return std::optional<int64_t>();
  DDBD_ASSIGN_OR_RETURN(auto value, wire::GetLong(*override_object, units));
  if (value && *value < 1) errors.ValueAtLeast(std::to_string(*value), path, 1);
  return value;
}

Status ReadOverrides(wire::JsonObject object, const std::string& path, ReplicaActionInput& action,
                     wire::ConstraintErrors& errors) {
  DDBD_ASSIGN_OR_RETURN(auto kms, wire::GetString(object, "KMSMasterKeyId"));
  if (kms) action.kms_master_key_id = std::string(*kms);
  DDBD_ASSIGN_OR_RETURN(
      action.read_capacity_override,
      ReadUnits(object, "ProvisionedThroughputOverride", "ReadCapacityUnits",
                path + ".provisionedThroughputOverride.readCapacityUnits", errors));
  DDBD_ASSIGN_OR_RETURN(
      action.max_read_request_units_override,
      ReadUnits(object, "OnDemandThroughputOverride", "MaxReadRequestUnits",
                path + ".onDemandThroughputOverride.maxReadRequestUnits", errors));
  DDBD_ASSIGN_OR_RETURN(auto table_class,
                        ReadEnum(object, "TableClassOverride", path + ".tableClassOverride",
                                 {"STANDARD", "STANDARD_INFREQUENT_ACCESS"}, errors));
  if (table_class) action.table_class_override = std::string(*table_class);
  DDBD_ASSIGN_OR_RETURN(auto indexes, wire::GetArray(object, "GlobalSecondaryIndexes"));
  if (!indexes) return OkStatus();
  if (indexes->size() == 0) errors.LengthAtLeast("[]", path + ".globalSecondaryIndexes", 1);
  for (wire::JsonValue element : *indexes) {
    DDBD_ASSIGN_OR_RETURN(wire::JsonObject index_object, wire::AsObject(element));
    const std::string index_path =
        path + ".globalSecondaryIndexes." + std::to_string(action.indexes.size() + 1) + ".member";
    ReplicaIndexSettings& index = action.indexes.emplace_back();
    DDBD_ASSIGN_OR_RETURN(auto name, wire::GetString(index_object, "IndexName"));
    if (!name) errors.NotNull(index_path + ".indexName");
    index.index_name = std::string(name.value_or(""));
    DDBD_ASSIGN_OR_RETURN(index.read_capacity_override,
                          ReadUnits(index_object, "ProvisionedThroughputOverride",
                                    "ReadCapacityUnits", index_path, errors));
    DDBD_ASSIGN_OR_RETURN(index.max_read_request_units_override,
                          ReadUnits(index_object, "OnDemandThroughputOverride",
                                    "MaxReadRequestUnits", index_path, errors));
  }
  return OkStatus();
}

// One ReplicationGroupUpdate: exactly one of Create, Update, Delete.
Result<ReplicaActionInput> ReadAction(wire::JsonValue element, size_t position,
                                      wire::ConstraintErrors& errors) {
  DDBD_ASSIGN_OR_RETURN(wire::JsonObject object, wire::AsObject(element));
  static constexpr std::pair<std::string_view, Kind> kKinds[] = {
      {"Create", Kind::kCreate}, {"Update", Kind::kUpdate}, {"Delete", Kind::kDelete}};
  std::optional<std::pair<wire::JsonObject, Kind>> found;
  for (const auto& [member, kind] : kKinds) {
    DDBD_ASSIGN_OR_RETURN(auto action_object, wire::GetObject(object, member));
    if (!action_object) continue;
    if (found) {
      return Error::Validation(
          "Update table operation with more than one type of replica actions not allowed.");
    }
    found.emplace(*action_object, kind);
  }
  if (!found) {
    return Error::Validation(
        "There are no actions specified in the Replica Update Action of the request.");
  }
  ReplicaActionInput action;
  action.kind = found->second;
  static constexpr std::string_view kPaths[] = {"create", "update", "delete"};
  const std::string path = "replicaUpdates." + std::to_string(position) + ".member." +
                           std::string(kPaths[static_cast<int>(action.kind)]);
  DDBD_ASSIGN_OR_RETURN(auto region, wire::GetString(found->first, "RegionName"));
  if (!region) errors.NotNull(path + ".regionName");
  action.region = std::string(region.value_or(""));
  if (action.kind != Kind::kDelete) {
    DDBD_RETURN_IF_ERROR(ReadOverrides(found->first, path, action, errors));
  }
  return action;
}

Result<std::vector<WitnessUpdateInput>> ReadWitnesses(wire::JsonObject body,
                                                      wire::ConstraintErrors& errors) {
  std::vector<WitnessUpdateInput> witnesses;
  DDBD_ASSIGN_OR_RETURN(auto array, wire::GetArray(body, "GlobalTableWitnessUpdates"));
  if (!array) return witnesses;
  if (array->size() == 0) errors.LengthAtLeast("[]", "globalTableWitnessUpdates", 1);
  if (array->size() > 1) {
    errors.AddUnechoed("globalTableWitnessUpdates",
                       "Member must have length less than or equal to 1");
  }
  for (wire::JsonValue element : *array) {
    DDBD_ASSIGN_OR_RETURN(wire::JsonObject object, wire::AsObject(element));
    for (bool create : {true, false}) {
      DDBD_ASSIGN_OR_RETURN(auto action, wire::GetObject(object, create ? "Create" : "Delete"));
      if (!action) continue;
      DDBD_ASSIGN_OR_RETURN(auto region, wire::GetString(*action, "RegionName"));
      witnesses.push_back({create, std::string(region.value_or(""))});
    }
  }
  return witnesses;
}

// The sets of regions a multi-Region strongly consistent table may span.
const std::vector<std::string_view>* StrongRegionSet(std::string_view region) {
  static const std::vector<std::vector<std::string_view>> kSets = {
      {"us-east-1", "us-east-2", "us-west-2"},
      {"eu-west-1", "eu-west-2", "eu-west-3", "eu-central-1"},
      {"ap-northeast-1", "ap-northeast-2", "ap-northeast-3"}};
  for (const auto& set : kSets) {
    if (std::find(set.begin(), set.end(), region) != set.end()) return &set;
  }
  return nullptr;
}

std::string ListOf(const std::vector<std::string>& regions) {
  std::string list = "[";
  for (const auto& region : regions) list += (list.size() > 1 ? ", " : "") + region;
  return list + "]";
}

// A new strongly consistent group: two replicas created, or one and a witness, all in one
// region set.
Status CheckNewStrongGroup(const TableDef& table, const ReplicaUpdatesInput& in) {
  if (table.replication) {
    return Error::Validation(
        "MultiRegionConsistency parameter is unsupported on existing global table");
  }
  size_t creates = 0;
  for (const auto& action : in.actions) {
    if (action.kind != Kind::kCreate) {
      return Error::Validation(
          "Only Replica Create actions are supported when MultiRegionConsistency parameter is "
          "provided.");
    }
    ++creates;
  }
  const size_t witnesses = in.witnesses.size();
  if (!((creates == 2 && witnesses == 0) || (creates == 1 && witnesses == 1))) {
    return Error::Validation(
        "Unsupported replica count for global tables with MultiRegionConsistency set to STRONG.");
  }
  for (const auto& witness : in.witnesses) {
    if (witness.region == table.region) {
      return Error::Validation(
          "Cannot add a witness in the same region as an existing replica when creating a "
          "global table with MultiRegionConsistency set to STRONG.");
    }
    if (witness.region == in.actions.front().region) {
      return Error::Validation("Cannot target multiple regions with the same action");
    }
  }
  const auto* set = StrongRegionSet(table.region);
  std::vector<std::string> unsupported;
  auto check = [&](const std::string& region) {
    if (!set || std::find(set->begin(), set->end(), region) == set->end()) {
      unsupported.push_back(region);
    }
  };
  for (const auto& action : in.actions) check(action.region);
  for (const auto& witness : in.witnesses) check(witness.region);
  if (!unsupported.empty()) {
    return Error::Validation(
        "Unsupported Region(s) specified for global tables with MultiRegionConsistency set to "
        "STRONG: " +
        ListOf(unsupported) + ".");
  }
  return OkStatus();
}

// A strongly consistent group is taken apart whole: every other replica and every witness
// deleted in one request; nothing is added.
Status CheckStrongGroupChange(const TableDef& table, const ReplicaUpdatesInput& in) {
  const ReplicationGroup& group = *table.replication;
  std::vector<std::string> stray_witnesses;
  for (const auto& witness : in.witnesses) {
    if (witness.create || std::find(group.witnesses.begin(), group.witnesses.end(),
                                    witness.region) == group.witnesses.end()) {
      stray_witnesses.push_back(witness.region);
    }
  }
  if (!stray_witnesses.empty()) {
    return Error::Validation(
        "Update global table operation failed because one or more witnesses were not part of "
        "the global table. Please retry the request without these witnesses: " +
        ListOf(stray_witnesses) + ".");
  }
  std::set<std::string> deleted;
  for (const auto& action : in.actions) {
    if (action.kind == Kind::kCreate) {
      return Error::Validation(
          "Cannot add replicas to a global table with strong MultiRegionConsistency");
    }
    if (action.kind == Kind::kDelete) deleted.insert(action.region);
  }
  if (deleted.empty()) return OkStatus();
  if (in.witnesses.size() != group.witnesses.size()) {
    return Error::Validation("Update table delete operation does not include all witnesses.");
  }
  for (const auto& replica : group.replicas) {
    if (replica.region != table.region && !deleted.count(replica.region)) {
      return Error::Validation(
          "Deletion of only one table replica is not supported for global tables with "
          "MultiRegionConsistency set to STRONG.");
    }
  }
  return OkStatus();
}

// One kind of action per request, and one Create or Delete (a strongly consistent group is
// created and removed several replicas at a time).
Status CheckActionCounts(const TableDef& table, const ReplicaUpdatesInput& in) {
  const bool strong_group = table.replication && table.replication->strong_consistency;
  size_t creates = 0, deletes = 0;
  for (const auto& action : in.actions) {
    if (action.kind != in.actions.front().kind) {
      return Error::Validation(
          "Update table operation with more than one type of replica actions not allowed.");
    }
    creates += action.kind == Kind::kCreate;
    deletes += action.kind == Kind::kDelete;
  }
  if ((creates > 1 && !in.strong.value_or(false)) || (deletes > 1 && !strong_group)) {
    return Error::Validation(
        "Update table operation with more than one create or delete replica actions not "
        "allowed");
  }
  return OkStatus();
}

Status CheckRegions(const TableDef& table, const ReplicaUpdatesInput& in) {
  for (const auto& action : in.actions) {
    if (action.kind != Kind::kUpdate && action.region == table.region) {
      return Error::Validation(
          "Cannot add or delete the local region through ReplicaUpdates. Use CreateTable, "
          "DeleteTable, or UpdateTable as required.");
    }
  }
  auto supported = [](const std::string& region) -> Status {
    if (replication::IsReplicaRegion(region)) return OkStatus();
    return Error::Validation("Region " + region +
                             " is not supported. The latest version of global tables are only "
                             "supported in the following regions: " +
                             replication::ReplicaRegionList() + ".");
  };
  for (const auto& action : in.actions) DDBD_RETURN_IF_ERROR(supported(action.region));
  for (const auto& witness : in.witnesses) DDBD_RETURN_IF_ERROR(supported(witness.region));
  return OkStatus();
}

Status CheckMembership(
    const TableDef& table, const ReplicaUpdatesInput& in,
    const std::function<std::shared_ptr<const TableDef>(std::string_view region)>& tables_in) {
  const ReplicationGroup* group = table.replication ? &*table.replication : nullptr;
  std::vector<std::string> strangers;
  for (const auto& action : in.actions) {
    const bool member = group && group->Find(action.region);
    if (action.kind == Kind::kCreate && (member || tables_in(action.region))) {
      return Error::Validation("Failed to create a the new replica of table with name: \u2018" +
                               table.name +
                               "\u2019 because one or more replicas already existed as tables.");
    }
    if (action.kind != Kind::kCreate && !member) strangers.push_back(action.region);
  }
  if (!strangers.empty()) {
    return Error::Validation(
        "Update global table operation failed because one or more replicas were not part of "
        "the global table. Please retry the request without these replicas: " +
        ListOf(strangers) + ".");
  }
  return OkStatus();
}

// What an action sets must suit the table's billing mode; an Update must set something.
Status CheckSettings(const TableDef& table, const ReplicaUpdatesInput& in) {
  for (const auto& action : in.actions) {
    if (action.kind == Kind::kDelete) continue;
    if (action.kind == Kind::kUpdate && !action.HasSettings()) {
      return Error::Validation(
          "There are no actions specified in the Replica Update Action of the request.");
    }
    const bool on_demand = table.billing_mode == BillingMode::kPayPerRequest;
    const bool any_read_override =
        action.read_capacity_override ||
        std::any_of(action.indexes.begin(), action.indexes.end(),
                    [](const auto& index) { return index.read_capacity_override.has_value(); });
    const bool any_max_override =
        action.max_read_request_units_override ||
        std::any_of(action.indexes.begin(), action.indexes.end(), [](const auto& index) {
          return index.max_read_request_units_override.has_value();
        });
    if (on_demand && any_read_override && action.kind == Kind::kUpdate) {
      return Error::Validation(
          "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode "
          "is PAY_PER_REQUEST");
    }
    if (!on_demand && any_max_override) {
      return Error::Validation(
          "MaxReadRequestUnits for OnDemandThroughput cannot be specified when the table "
          "BillingMode is PROVISIONED");
    }
  }
  return OkStatus();
}

}  // namespace

bool ReplicaActionInput::HasSettings() const {
  const bool index_override = std::any_of(indexes.begin(), indexes.end(), [](const auto& index) {
    return index.read_capacity_override || index.max_read_request_units_override;
  });
  return kms_master_key_id || read_capacity_override || max_read_request_units_override ||
         table_class_override || index_override;
}

Result<ReplicaUpdatesInput> ReadReplicaUpdates(wire::JsonObject body,
                                               wire::ConstraintErrors& errors) {
  ReplicaUpdatesInput in;
  DDBD_ASSIGN_OR_RETURN(auto array, wire::GetArray(body, "ReplicaUpdates"));
  if (array) {
    if (array->size() == 0) errors.LengthAtLeast("[]", "replicaUpdates", 1);
    size_t position = 0;
    for (wire::JsonValue element : *array) {
      DDBD_ASSIGN_OR_RETURN(ReplicaActionInput action, ReadAction(element, ++position, errors));
      const bool repeated = action.kind == Kind::kCreate &&
                            std::any_of(in.actions.begin(), in.actions.end(), [&](const auto& a) {
                              return a.kind == Kind::kCreate && a.region == action.region;
                            });
      if (!repeated) in.actions.push_back(std::move(action));
    }
  }
  DDBD_ASSIGN_OR_RETURN(auto consistency,
                        ReadEnum(body, "MultiRegionConsistency", "multiRegionConsistency",
                                 {"EVENTUAL", "STRONG"}, errors));
  if (consistency) in.strong = *consistency == "STRONG";
  DDBD_ASSIGN_OR_RETURN(in.witnesses, ReadWitnesses(body, errors));
  return in;
}

Status CheckReplicaUpdates(
    const TableDef& table, const ReplicaUpdatesInput& in,
    const std::function<std::shared_ptr<const TableDef>(std::string_view region)>& tables_in) {
  const bool strong_group = table.replication && table.replication->strong_consistency;
  if (!in.witnesses.empty() && !in.strong.value_or(false) && !strong_group) {
    return Error::Validation(
        "MultiRegionConsistency must be set as STRONG when GlobalTableWitnessUpdates parameter "
        "is present.");
  }
  if (in.strong) {
    DDBD_RETURN_IF_ERROR(CheckNewStrongGroup(table, in));
  } else if (strong_group) {
    DDBD_RETURN_IF_ERROR(CheckStrongGroupChange(table, in));
  }
  DDBD_RETURN_IF_ERROR(CheckActionCounts(table, in));
  DDBD_RETURN_IF_ERROR(CheckRegions(table, in));
  DDBD_RETURN_IF_ERROR(CheckMembership(table, in, tables_in));
  DDBD_RETURN_IF_ERROR(CheckSettings(table, in));
  bool busy = table.status != TableStatus::kActive;
  if (table.replication) {
    for (const auto& replica : table.replication->replicas) {
      busy = busy || replica.status != ReplicaStatus::kActive;
    }
  }
  if (busy)
    return Error::ResourceInUse("The resource which you are attempting to change is in use.");
  return OkStatus();
}

}  // namespace ddbd::server::ops
