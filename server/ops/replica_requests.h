// The global-table members of UpdateTable (version 2019.11.21): ReplicaUpdates,
// MultiRegionConsistency and GlobalTableWitnessUpdates, read and checked against the table in
// DynamoDB's order of refusals. Entry points: ReadReplicaUpdates, CheckReplicaUpdates.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/table_def.h"
#include "server/op_context.h"
#include "wire/constraint_errors.h"
#include "wire/json_reader.h"

namespace ddbd::server::ops {

struct ReplicaActionInput {
  enum class Kind : uint8_t { kCreate, kUpdate, kDelete } kind = Kind::kCreate;
  std::string region;
  std::optional<std::string> kms_master_key_id;
  std::optional<int64_t> read_capacity_override;
  std::optional<int64_t> max_read_request_units_override;
  std::optional<std::string> table_class_override;
  std::vector<ReplicaIndexSettings> indexes;  // GSI overrides
  // Whether the action sets anything beyond its region (an Update must).
  bool HasSettings() const;
};

struct WitnessUpdateInput {
  bool create = true;
  std::string region;
};

struct ReplicaUpdatesInput {
  std::vector<ReplicaActionInput> actions;
  std::optional<bool> strong;  // MultiRegionConsistency: STRONG (true) or EVENTUAL
  std::vector<WitnessUpdateInput> witnesses;
  bool present() const { return !actions.empty() || strong || !witnesses.empty(); }
};

// Reads the members; constraint violations go to `errors`. Identical Create actions count
// once, as on DynamoDB.
Result<ReplicaUpdatesInput> ReadReplicaUpdates(wire::JsonObject body,
                                               wire::ConstraintErrors& errors);

// Refuses what DynamoDB refuses before changing anything: several kinds or several actions,
// the local region, unknown regions, a Create of a region that has the table already, an
// Update or Delete of a region that is not a replica, an Update that sets nothing, overrides
// the billing mode does not allow, the rules of multi-Region strong consistency, and a table
// (or replica) in a transient state. `tables_in` finds the table of the same name in another
// region (nullptr when there is none, or when regions share their tables).
Status CheckReplicaUpdates(
    const TableDef& table, const ReplicaUpdatesInput& in,
    const std::function<std::shared_ptr<const TableDef>(std::string_view region)>& tables_in);

}  // namespace ddbd::server::ops
