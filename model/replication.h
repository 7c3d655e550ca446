// What a table records of the global table it belongs to (version 2019.11.21): the members of
// its replication group, each with what it overrides of the table's settings, its
// multi-Region consistency and witnesses, and the replica auto scaling settings that
// Describe/UpdateTableReplicaAutoScaling store and report. Every replica keeps the same copy.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ddbd {

// Target tracking of one capacity dimension (AutoScalingSettingsUpdate): stored and reported;
// no scaling is simulated.
struct ScalingPolicy {
  std::string name;
  double target_value = 0;
  std::optional<bool> disable_scale_in;
  std::optional<int64_t> scale_in_cooldown;
  std::optional<int64_t> scale_out_cooldown;
  friend bool operator==(const ScalingPolicy&, const ScalingPolicy&) = default;
};

// One dimension's auto scaling settings once configured (AutoScalingSettingsDescription).
struct AutoScaling {
  int64_t minimum_units = 0;
  int64_t maximum_units = 0;
  bool disabled = false;
  std::string role_arn;
  std::optional<ScalingPolicy> policy;
  friend bool operator==(const AutoScaling&, const AutoScaling&) = default;
};

// A replica's settings for one of its GSIs.
struct ReplicaIndexSettings {
  std::string index_name;
  std::optional<int64_t> read_capacity_override;           // ProvisionedThroughputOverride
  std::optional<int64_t> max_read_request_units_override;  // OnDemandThroughputOverride
  std::optional<AutoScaling> read_scaling;
  friend bool operator==(const ReplicaIndexSettings&, const ReplicaIndexSettings&) = default;
};

// The lifecycle of a replica as its group reports it (ReplicaStatus). Stored on disk:
// never renumber.
enum class ReplicaStatus : uint8_t { kCreating = 1, kActive = 2, kUpdating = 3, kDeleting = 4 };

// One member of a replication group.
struct ReplicaSpec {
  std::string region;
  ReplicaStatus status = ReplicaStatus::kActive;
  std::optional<int64_t> read_capacity_override;
  std::optional<int64_t> max_read_request_units_override;
  std::optional<std::string> table_class_override;  // TableClassOverride
  int64_t table_class_changed_ms = 0;
  std::string kms_master_key_id;
  std::vector<ReplicaIndexSettings> indexes;
  std::optional<AutoScaling> read_scaling;  // ReplicaProvisionedReadCapacityAutoScaling
  friend bool operator==(const ReplicaSpec&, const ReplicaSpec&) = default;
};

// A GSI's write auto scaling, group-wide.
struct IndexWriteScaling {
  std::string index_name;
  AutoScaling scaling;
  friend bool operator==(const IndexWriteScaling&, const IndexWriteScaling&) = default;
};

struct ReplicationGroup {
  // Every replica, the table's own included, in the order they joined.
  std::vector<ReplicaSpec> replicas;
  bool strong_consistency = false;           // MultiRegionConsistency STRONG
  std::vector<std::string> witnesses;        // regions of the witnesses (STRONG only)
  std::optional<AutoScaling> write_scaling;  // the table's write capacity, every replica
  std::vector<IndexWriteScaling> index_write_scaling;

  const ReplicaSpec* Find(std::string_view region) const {
    for (const auto& replica : replicas) {
      if (replica.region == region) return &replica;
    }
    return nullptr;
  }
  ReplicaSpec* Find(std::string_view region) {
    return const_cast<ReplicaSpec*>(std::as_const(*this).Find(region));
  }
  friend bool operator==(const ReplicationGroup&, const ReplicationGroup&) = default;
};

// The version of global tables ddbd implements.
inline constexpr std::string_view kGlobalTableVersion = "2019.11.21";

}  // namespace ddbd
