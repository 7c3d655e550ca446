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

// Runs `work` on a background thread after the delay (with a context of the same scope).
void AfterTransientDelay(OpContext& ctx, std::function<void(OpContext&)> work);

// ResourceInUseException for a table that is being created, updated or deleted (UpdateTable;
// DeleteTable passes `allow_updating`).
Status CheckTableChangeable(const TableDef& table, bool allow_updating);

}  // namespace ddbd::server::ops
