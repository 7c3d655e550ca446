// DynamoDB Local's -delayTransientStatuses: tables and indexes pass through CREATING,
// UPDATING and DELETING for a short while (ServiceOptions::transient_status_delay) instead of
// changing state at once, so that SDK waiters and readiness checks are exercised.
// Entry points: TransientStatuses, AfterTransientDelay, CheckTableChangeable.
#pragma once

#include <functional>

#include "model/table_def.h"
#include "server/op_context.h"

namespace ddbd::server::ops {

// Whether state changes are delayed.
bool TransientStatuses(const OpContext& ctx);

// After the delay, applies `change` to the table's current definition (if the table with
// this id still exists) and stores it; `change` returns false to store nothing.
void AfterTransientDelay(OpContext& ctx, uint64_t table_id,
                         std::function<bool(TableDef&, OpContext&)> change);

// ResourceInUseException for a table that is being created, updated or deleted (UpdateTable;
// DeleteTable passes `allow_updating`).
Status CheckTableChangeable(const TableDef& table, bool allow_updating);

}  // namespace ddbd::server::ops
