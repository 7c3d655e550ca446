// DescribeTableReplicaAutoScaling and UpdateTableReplicaAutoScaling: the auto scaling settings
// of a global table's replicas — the table's write capacity and each GSI's, group-wide; each
// replica's read capacity and its GSIs' — stored with the replication group (every replica
// keeps the same copy) and reported in DynamoDB's shapes, with the checks of DynamoDB and of
// Application Auto Scaling behind it. No scaling is simulated: capacities stay as set.
#include <algorithm>
#include <charconv>
#include <cmath>

#include "server/ops/common.h"
#include "server/ops/ops.h"
#include "server/ops/replica_changes.h"
#include "server/ops/table_description.h"

namespace ddbd::server::ops {
namespace {

constexpr std::string_view kRoleArn =
    "arn:aws:iam::000000000000:role/aws-service-role/"
    "dynamodb.application-autoscaling.amazonaws.com/"
    "AWSServiceRoleForApplicationAutoScaling_DynamoDBTable";

struct PolicyUpdate {
  std::optional<std::string> name;
  double target_value = 0;
  std::optional<bool> disable_scale_in;
  std::optional<int64_t> scale_in_cooldown;
  std::optional<int64_t> scale_out_cooldown;
};

// An AutoScalingSettingsUpdate.
struct ScalingUpdate {
  std::optional<int64_t> minimum_units;
  std::optional<int64_t> maximum_units;
  bool disable = false;
  std::optional<std::string> role_arn;
  std::optional<PolicyUpdate> policy;
};

struct IndexScalingUpdate {
  std::string index_name;
  ScalingUpdate update;
};

struct ReplicaScalingUpdate {
  std::string region;
  std::optional<ScalingUpdate> read;
  std::vector<IndexScalingUpdate> indexes;
};

struct AutoScalingInput {
  std::string_view table_name;
  std::optional<ScalingUpdate> write;
  std::vector<IndexScalingUpdate> index_writes;
  std::vector<ReplicaScalingUpdate> replicas;
};

Result<std::optional<ScalingUpdate>> ReadScaling(wire::JsonObject parent, std::string_view member,
                                                 const std::string& path,
                                                 wire::ConstraintErrors& errors) {
  DDBD_ASSIGN_OR_RETURN(auto object, wire::GetObject(parent, member));
  if (!object) return std::optional<ScalingUpdate>();
  ScalingUpdate update;
  DDBD_ASSIGN_OR_RETURN(update.minimum_units, wire::GetLong(*object, "MinimumUnits"));
  DDBD_ASSIGN_OR_RETURN(update.maximum_units, wire::GetLong(*object, "MaximumUnits"));
  for (const auto& [value, name] : {std::pair{update.minimum_units, ".minimumUnits"},
                                    std::pair{update.maximum_units, ".maximumUnits"}}) {
    if (value && *value < 1) errors.ValueAtLeast(std::to_string(*value), path + name, 1);
  }
  DDBD_ASSIGN_OR_RETURN(auto disabled, wire::GetBool(*object, "AutoScalingDisabled"));
  update.disable = disabled.value_or(false);
  DDBD_ASSIGN_OR_RETURN(auto role, wire::GetString(*object, "AutoScalingRoleArn"));
  if (role) update.role_arn = std::string(*role);
  DDBD_ASSIGN_OR_RETURN(auto policy_object, wire::GetObject(*object, "ScalingPolicyUpdate"));
  if (!policy_object) return std::optional(std::move(update));
  PolicyUpdate& policy = update.policy.emplace();
  DDBD_ASSIGN_OR_RETURN(auto name, wire::GetString(*policy_object, "PolicyName"));
  if (name) {
    policy.name = std::string(*name);
    if (name->empty()) errors.LengthAtLeast(*name, path + ".scalingPolicyUpdate.policyName", 1);
    if (name->size() > 256) {
      errors.LengthAtMost(*name, path + ".scalingPolicyUpdate.policyName", 256);
    }
  }
  const std::string config_path =
      path + ".scalingPolicyUpdate.targetTrackingScalingPolicyConfiguration";
  DDBD_ASSIGN_OR_RETURN(
      auto config, wire::GetObject(*policy_object, "TargetTrackingScalingPolicyConfiguration"));
  if (!config) {
    errors.NotNull(config_path);
    return std::optional(std::move(update));
  }
  DDBD_ASSIGN_OR_RETURN(auto target, wire::GetDouble(*config, "TargetValue"));
  if (!target) errors.NotNull(config_path + ".targetValue");
  policy.target_value = target.value_or(0);
  DDBD_ASSIGN_OR_RETURN(policy.disable_scale_in, wire::GetBool(*config, "DisableScaleIn"));
  DDBD_ASSIGN_OR_RETURN(policy.scale_in_cooldown, wire::GetLong(*config, "ScaleInCooldown"));
  DDBD_ASSIGN_OR_RETURN(policy.scale_out_cooldown, wire::GetLong(*config, "ScaleOutCooldown"));
  return std::optional(std::move(update));
}

// [{"IndexName", "<member>"}] lists.
Result<std::vector<IndexScalingUpdate>> ReadIndexScalings(wire::JsonObject parent,
                                                          std::string_view list_member,
                                                          std::string_view member,
                                                          const std::string& path,
                                                          wire::ConstraintErrors& errors) {
  std::vector<IndexScalingUpdate> updates;
  DDBD_ASSIGN_OR_RETURN(auto list, wire::GetArray(parent, list_member));
  if (!list) return updates;
  if (list->size() == 0) errors.LengthAtLeast("[]", path, 1);
  for (wire::JsonValue element : *list) {
    DDBD_ASSIGN_OR_RETURN(wire::JsonObject object, wire::AsObject(element));
    const std::string entry_path = path + "." + std::to_string(updates.size() + 1) + ".member";
    IndexScalingUpdate& update = updates.emplace_back();
    DDBD_ASSIGN_OR_RETURN(auto name, wire::GetString(object, "IndexName"));
    update.index_name = std::string(name.value_or(""));
    DDBD_ASSIGN_OR_RETURN(auto scaling, ReadScaling(object, member, entry_path, errors));
    if (scaling) update.update = std::move(*scaling);
  }
  return updates;
}

Result<AutoScalingInput> ReadAutoScalingUpdate(wire::JsonObject body) {
  AutoScalingInput in;
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(in.table_name, ReadTableName(body, errors));
  DDBD_ASSIGN_OR_RETURN(in.write, ReadScaling(body, "ProvisionedWriteCapacityAutoScalingUpdate",
                                              "provisionedWriteCapacityAutoScalingUpdate", errors));
  DDBD_ASSIGN_OR_RETURN(in.index_writes,
                        ReadIndexScalings(body, "GlobalSecondaryIndexUpdates",
                                          "ProvisionedWriteCapacityAutoScalingUpdate",
                                          "globalSecondaryIndexUpdates", errors));
  DDBD_ASSIGN_OR_RETURN(auto replicas, wire::GetArray(body, "ReplicaUpdates"));
  if (replicas) {
    if (replicas->size() == 0) errors.LengthAtLeast("[]", "replicaUpdates", 1);
    for (wire::JsonValue element : *replicas) {
      DDBD_ASSIGN_OR_RETURN(wire::JsonObject object, wire::AsObject(element));
      const std::string path =
          "replicaUpdates." + std::to_string(in.replicas.size() + 1) + ".member";
      ReplicaScalingUpdate& replica = in.replicas.emplace_back();
      DDBD_ASSIGN_OR_RETURN(auto region, wire::GetString(object, "RegionName"));
      if (!region) errors.NotNull(path + ".regionName");
      replica.region = std::string(region.value_or(""));
      DDBD_ASSIGN_OR_RETURN(
          replica.read,
          ReadScaling(object, "ReplicaProvisionedReadCapacityAutoScalingUpdate",
                      path + ".replicaProvisionedReadCapacityAutoScalingUpdate", errors));
      DDBD_ASSIGN_OR_RETURN(
          replica.indexes, ReadIndexScalings(object, "ReplicaGlobalSecondaryIndexUpdates",
                                             "ProvisionedReadCapacityAutoScalingUpdate",
                                             path + ".replicaGlobalSecondaryIndexUpdates", errors));
    }
  }
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  return in;
}

std::string Quoted(std::string_view text) { return "\u2018" + std::string(text) + "\u2019"; }

// Auto scaling is either disabled alone or enabled with its limits and policy.
Status CheckComplete(std::string_view table, const ScalingUpdate& update) {
  std::vector<std::string_view> named;
  if (update.disable) {
    if (update.maximum_units) named.push_back("'MaximumUnits'");
    if (update.minimum_units) named.push_back("'MinimumUnits'");
    if (named.empty() && update.policy) named.push_back("'ScalingPolicyUpdate'");
  } else {
    if (!update.maximum_units) named.push_back("'MaximumUnits'");
    if (!update.policy) named.push_back("'ScalingPolicyUpdate'");
    if (!update.minimum_units) named.push_back("'MinimumUnits'");
  }
  if (named.empty()) return OkStatus();
  std::string list;
  for (std::string_view name : named) list += (list.empty() ? "" : ", ") + std::string(name);
  if (update.disable) {
    return Error::Validation("Failed to update settings for global table with name " +
                             Quoted(table) + ": Parameters " + list +
                             " must be left blank when disabling auto scaling.");
  }
  return Error::Validation(
      "Failed to update settings for global table with name: " + Quoted(table) + ": Parameters " +
      list + " are required unless auto scaling is being disabled.");
}

Status CheckUpdatesComplete(const AutoScalingInput& in) {
  const std::string_view table = TableNameOf(in.table_name);
  if (in.write) DDBD_RETURN_IF_ERROR(CheckComplete(table, *in.write));
  for (const auto& index : in.index_writes)
    DDBD_RETURN_IF_ERROR(CheckComplete(table, index.update));
  for (const auto& replica : in.replicas) {
    if (!replica.read && replica.indexes.empty()) {
      return Error::Validation(
          "Failed to update settings for global table with name: " + Quoted(table) +
          " because at least one update parameter must be specified for "
          "region: " +
          Quoted(replica.region) + ".");
    }
    if (replica.read) DDBD_RETURN_IF_ERROR(CheckComplete(table, *replica.read));
    for (const auto& index : replica.indexes) {
      DDBD_RETURN_IF_ERROR(CheckComplete(table, index.update));
    }
  }
  return OkStatus();
}

// A double as Java prints it (Application Auto Scaling's messages): "90.1", "100.0",
// "8.51592E-109".
std::string JavaDouble(double value) {
  char buffer[64];
  const double magnitude = std::fabs(value);
  if (value == 0 || (magnitude >= 1e-3 && magnitude < 1e7)) {
    auto end = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed).ptr;
    std::string text(buffer, end);
    if (text.find('.') == std::string::npos) text += ".0";
    return text;
  }
  auto end =
      std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific).ptr;
  std::string text(buffer, end);
  const size_t e = text.find('e');
  std::string mantissa = text.substr(0, e);
  if (mantissa.find('.') == std::string::npos) mantissa += ".0";
  std::string exponent = text.substr(e + 1);
  if (exponent[0] == '+') exponent.erase(0, 1);
  const bool negative = exponent[0] == '-';
  if (negative) exponent.erase(0, 1);
  exponent.erase(0, std::min(exponent.find_first_not_of('0'), exponent.size() - 1));
  return mantissa + "E" + (negative ? "-" : "") + exponent;
}

Error AutoScalingRefusal(const std::string& message) {
  return Error::Validation(message +
                           " (Service: AWSApplicationAutoScaling; Status Code: 400; Error Code: "
                           "ValidationException; Request ID: " +
                           NewTableUuid() + "; Proxy: null)");
}

// What Application Auto Scaling checks of a target and its policy.
Status CheckTarget(const ScalingUpdate& update, std::string_view metric) {
  if (update.disable) return OkStatus();
  if (*update.maximum_units < *update.minimum_units) {
    return AutoScalingRefusal("Maximum capacity cannot be less than minimum capacity");
  }
  const double target = update.policy->target_value;
  if (!(target >= 8.51592e-109 && target <= 1.174271e108)) {
    return AutoScalingRefusal(
        "For target tracking scaling, target value must be between '8.51592E-109' and "
        "'1.174271E108', but was '" +
        JavaDouble(target) + "'.");
  }
  if (target < 10 || target > 90) {
    return AutoScalingRefusal("For predefined metric type " + std::string(metric) +
                              ", target value must be between '10.0' and '90.0', but was '" +
                              JavaDouble(target) + "'.");
  }
  return OkStatus();
}

const IndexDef* ScalableIndex(const TableDef& table, std::string_view name) {
  const IndexDef* index = table.FindIndex(name);
  if (!index || index->local || index->IsVector() || index->status == IndexStatus::kCreating) {
    return nullptr;
  }
  return index;
}

// The request against the table: its replicas and GSIs exist, its billing mode is
// provisioned (unless auto scaling is only disabled), and every target is acceptable.
Status CheckAgainstTable(const TableDef& table, const AutoScalingInput& in) {
  const std::string name = Quoted(table.name);
  std::vector<std::string> missing;
  for (const auto& index : in.index_writes) {
    if (!ScalableIndex(table, index.index_name)) missing.push_back(index.index_name);
  }
  if (!missing.empty()) {
    std::string list;
    for (const auto& index : missing) list += (list.empty() ? "" : ", ") + index;
    return Error::ResourceNotFound("Failed to update settings for global table with name: " + name +
                                   " because the global secondary indexes with names: " +
                                   Quoted("[" + list + "]") + " do not exist.");
  }
  bool enables = in.write && !in.write->disable;
  for (const auto& index : in.index_writes) enables = enables || !index.update.disable;
  for (const auto& replica : in.replicas) {
    if (!table.replication->Find(replica.region)) {
      return Error::ResourceNotFound(
          "Failed to update settings for global table with name: " + name +
          " because the replica in region: " + Quoted(replica.region) + " does not exist.");
    }
    enables = enables || (replica.read && !replica.read->disable);
    for (const auto& index : replica.indexes) {
      if (!ScalableIndex(table, index.index_name)) {
        return Error::ResourceNotFound(
            "Failed to update settings for global table with name: " + name +
            " because a global secondary index with name: " + Quoted(index.index_name) +
            " does not exist in region: " + Quoted(replica.region) + ".");
      }
      enables = enables || !index.update.disable;
    }
  }
  if (enables && table.billing_mode == BillingMode::kPayPerRequest) {
    std::vector<std::string> regions;
    for (const auto& replica : table.replication->replicas) {
      std::string upper = replica.region;
      std::transform(upper.begin(), upper.end(), upper.begin(), ::toupper);
      regions.push_back("'" + upper + "'");
    }
    std::sort(regions.begin(), regions.end());
    std::string list;
    for (const auto& region : regions) list += (list.empty() ? "" : ", ") + region;
    const bool write = in.write || !in.index_writes.empty();
    return Error::Validation(
        "Failed to update global table with name \u2018" + table.name + "\u2018. Replicas " + list +
        " BillingMode is PayPerRequest. You must convert table's BillingMode to "
        "PROVISIONED to set parameters: '" +
        (write ? "ProvisionedWriteCapacityAutoScalingSettingsUpdate"
               : "ReplicaProvisionedReadCapacityAutoScalingSettingsUpdate") +
        "'.");
  }
  if (in.write) DDBD_RETURN_IF_ERROR(CheckTarget(*in.write, "DynamoDBWriteCapacityUtilization"));
  for (const auto& index : in.index_writes) {
    DDBD_RETURN_IF_ERROR(CheckTarget(index.update, "DynamoDBWriteCapacityUtilization"));
  }
  for (const auto& replica : in.replicas) {
    if (replica.read) {
      DDBD_RETURN_IF_ERROR(CheckTarget(*replica.read, "DynamoDBReadCapacityUtilization"));
    }
    for (const auto& index : replica.indexes) {
      DDBD_RETURN_IF_ERROR(CheckTarget(index.update, "DynamoDBReadCapacityUtilization"));
    }
  }
  return OkStatus();
}

// The settings an update leaves: none when it disables auto scaling; the policy is named
// after the dimension unless the request names it.
std::optional<AutoScaling> SettingsOf(const ScalingUpdate& update, std::string_view metric,
                                      const std::string& resource) {
  if (update.disable) return std::nullopt;
  AutoScaling scaling;
  scaling.minimum_units = *update.minimum_units;
  scaling.maximum_units = *update.maximum_units;
  scaling.role_arn = std::string(kRoleArn);
  const PolicyUpdate& policy = *update.policy;
  scaling.policy =
      ScalingPolicy{policy.name.value_or(std::string(metric) + ":" + resource), policy.target_value,
                    policy.disable_scale_in, policy.scale_in_cooldown, policy.scale_out_cooldown};
  return scaling;
}

void Apply(const AutoScalingInput& in, const TableDef& table, ReplicationGroup& group) {
  const std::string resource = "table/" + table.name;
  constexpr std::string_view kWrite = "DynamoDBWriteCapacityUtilization";
  constexpr std::string_view kRead = "DynamoDBReadCapacityUtilization";
  if (in.write) group.write_scaling = SettingsOf(*in.write, kWrite, resource);
  for (const auto& index : in.index_writes) {
    std::erase_if(group.index_write_scaling,
                  [&](const IndexWriteScaling& s) { return s.index_name == index.index_name; });
    auto settings = SettingsOf(index.update, kWrite, resource + "/index/" + index.index_name);
    if (settings) group.index_write_scaling.push_back({index.index_name, std::move(*settings)});
  }
  for (const auto& update : in.replicas) {
    ReplicaSpec* replica = group.Find(update.region);
    if (!replica) continue;
    if (update.read) replica->read_scaling = SettingsOf(*update.read, kRead, resource);
    for (const auto& index : update.indexes) {
      auto it = std::find_if(replica->indexes.begin(), replica->indexes.end(),
                             [&](const auto& s) { return s.index_name == index.index_name; });
      ReplicaIndexSettings& settings =
          it != replica->indexes.end() ? *it : replica->indexes.emplace_back();
      settings.index_name = index.index_name;
      settings.read_scaling =
          SettingsOf(index.update, kRead, resource + "/index/" + index.index_name);
    }
  }
}

void WriteScaling(wire::JsonWriter& out, std::string_view key,
                  const std::optional<AutoScaling>& scaling) {
  out.Key(key).BeginObject();
  if (!scaling) {
    out.Key("AutoScalingDisabled").Bool(true);
    out.Key("ScalingPolicies").BeginArray().EndArray();
    out.EndObject();
    return;
  }
  out.Key("MinimumUnits").Int(scaling->minimum_units);
  out.Key("MaximumUnits").Int(scaling->maximum_units);
  if (scaling->disabled) out.Key("AutoScalingDisabled").Bool(true);
  out.Key("AutoScalingRoleArn").String(scaling->role_arn);
  out.Key("ScalingPolicies").BeginArray();
  if (const auto& policy = scaling->policy) {
    out.BeginObject().Key("PolicyName").String(policy->name);
    out.Key("TargetTrackingScalingPolicyConfiguration").BeginObject();
    if (policy->disable_scale_in) out.Key("DisableScaleIn").Bool(*policy->disable_scale_in);
    if (policy->scale_in_cooldown) out.Key("ScaleInCooldown").Int(*policy->scale_in_cooldown);
    if (policy->scale_out_cooldown) out.Key("ScaleOutCooldown").Int(*policy->scale_out_cooldown);
    out.Key("TargetValue").Double(policy->target_value);
    out.EndObject().EndObject();
  }
  out.EndArray().EndObject();
}

std::string_view IndexStatusName(IndexStatus status) {
  switch (status) {
    case IndexStatus::kUpdating:
      return "UPDATING";
    case IndexStatus::kDeleting:
      return "DELETING";
    default:
      return "ACTIVE";
  }
}

void WriteReplicaScaling(wire::JsonWriter& out, const TableDef& table, const ReplicaSpec& replica) {
  const ReplicationGroup& group = *table.replication;
  out.BeginObject().Key("RegionName").String(replica.region);
  out.Key("GlobalSecondaryIndexes").BeginArray();
  for (const auto& index : table.indexes) {
    if (!ScalableIndex(table, index.name)) continue;
    out.BeginObject().Key("IndexName").String(index.name);
    out.Key("IndexStatus").String(IndexStatusName(index.status));
    std::optional<AutoScaling> read, write;
    for (const auto& settings : replica.indexes) {
      if (settings.index_name == index.name) read = settings.read_scaling;
    }
    for (const auto& settings : group.index_write_scaling) {
      if (settings.index_name == index.name) write = settings.scaling;
    }
    WriteScaling(out, "ProvisionedReadCapacityAutoScalingSettings", read);
    WriteScaling(out, "ProvisionedWriteCapacityAutoScalingSettings", write);
    out.EndObject();
  }
  out.EndArray();
  WriteScaling(out, "ReplicaProvisionedReadCapacityAutoScalingSettings", replica.read_scaling);
  WriteScaling(out, "ReplicaProvisionedWriteCapacityAutoScalingSettings", group.write_scaling);
  out.Key("ReplicaStatus").String(ReplicaStatusName(replica.status));
  out.EndObject();
}

// TableAutoScalingDescription: every replica, this region's included, by region name.
std::string RenderAutoScaling(const TableDef& table) {
  std::vector<const ReplicaSpec*> replicas;
  for (const auto& replica : table.replication->replicas) replicas.push_back(&replica);
  std::sort(replicas.begin(), replicas.end(),
            [](const auto* a, const auto* b) { return a->region < b->region; });
  wire::JsonWriter out;
  out.BeginObject().Key("TableAutoScalingDescription").BeginObject();
  out.Key("TableName").String(table.name);
  out.Key("TableStatus").String(TableStatusName(table.status));
  out.Key("Replicas").BeginArray();
  for (const auto* replica : replicas) WriteReplicaScaling(out, table, *replica);
  out.EndArray();
  out.EndObject().EndObject();
  return out.Take();
}

Result<std::shared_ptr<const TableDef>> FindGlobalTable(OpContext& ctx, std::string_view name) {
  auto table = ctx.catalog().Find(ctx.scope(), TableNameOf(name));
  if (!table || !table->replication) {
    return Error::ResourceNotFound("Global table with name: '" + std::string(TableNameOf(name)) +
                                   "' does not exist.");
  }
  return table;
}

}  // namespace

Result<std::string> DescribeTableReplicaAutoScaling(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(std::string_view name, ReadOnlyTableName(req.body));
  DDBD_ASSIGN_OR_RETURN(auto table, FindGlobalTable(ctx, name));
  return RenderAutoScaling(*table);
}

Result<std::string> UpdateTableReplicaAutoScaling(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(AutoScalingInput in, ReadAutoScalingUpdate(req.body));
  DDBD_RETURN_IF_ERROR(CheckUpdatesComplete(in));
  DDBD_ASSIGN_OR_RETURN(auto table, FindGlobalTable(ctx, in.table_name));
  DDBD_RETURN_IF_ERROR(CheckAgainstTable(*table, in));
  DDBD_RETURN_IF_ERROR(
      EditGroup(ctx, *table, [&](ReplicationGroup& group) { Apply(in, *table, group); }));
  auto current = ctx.catalog().FindById(table->id);
  if (!current || !current->replication) return ctx.MissingTable({});
  return RenderAutoScaling(*current);
}

}  // namespace ddbd::server::ops
