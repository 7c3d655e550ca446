// What global tables (version 2019.11.21) do to the tables of a replication group: adding a
// replica (a table of the same name in the other region's namespace, seeded with a copy of
// the items, then kept up to date by the replicator), changing a replica's overrides,
// removing one, and keeping every replica's copy of the group the same. Without region
// isolation every region already sees the same tables: the group is recorded and reported,
// and no replica table is made.
//
// Entry points: UpdateReplicas, ReplicaTables, EditGroup, LeaveGroup, SettleReplicas.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "model/table_def.h"
#include "server/op_context.h"
#include "server/ops/replica_requests.h"

namespace ddbd::server::ops {

// Carries out UpdateTable's checked ReplicaUpdates on `table` and returns its response.
Result<std::string> UpdateReplicas(OpContext& ctx, const TableDef& table,
                                   const ReplicaUpdatesInput& in);

// The table of `table`'s name in `region` (nullptr when there is none, or without region
// isolation).
std::shared_ptr<const TableDef> ReplicaTableIn(OpContext& ctx, const TableDef& table,
                                               std::string_view region);

// The tables of the other replicas of `table`'s group that exist (none without region
// isolation).
std::vector<std::shared_ptr<const TableDef>> ReplicaTables(OpContext& ctx, const TableDef& table);

// Applies `edit` to the group as every member records it (`table` and its ReplicaTables);
// a group left with one replica and no witness ends: its tables become regional (their
// streams stay enabled, as on DynamoDB).
Status EditGroup(OpContext& ctx, const TableDef& table,
                 const std::function<void(ReplicationGroup&)>& edit);

// DeleteTable of a replica: refused for a strongly consistent group (which is taken apart
// whole); otherwise its region leaves the other replicas' group.
Status LeaveGroup(OpContext& ctx, const TableDef& table);

// Start-up: replicas a crash left CREATING are removed (their copy of the items may be
// incomplete), those left DELETING are deleted, and every status returns to ACTIVE.
void SettleReplicas(OpContext& ctx, const TableDef& table);

}  // namespace ddbd::server::ops
