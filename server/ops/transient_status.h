// DynamoDB Local's -delayTransientStatuses: tables and indexes pass through CREATING,
// UPDATING and DELETING for a short while (ServiceOptions::transient_status_delay) instead of
// changing state at once, so that SDK waiters and readiness checks are exercised.
// The state changes that end those phases are named functions, because a start-up after a
// crash finishes the ones the crash interrupted (see recovery.h).
// Entry points: TransientStatuses, AfterTransientDelay, CheckTableChangeable, DropTable,
// DropIndexData, ActivateTable, FinishTableDeletion, SettleTableUpdate.
#pragma once

#include <functional>

#include "model/table_def.h"
#include "server/op_context.h"

namespace ddbd::server::ops {

// Whether state changes are delayed.
bool TransientStatuses(const OpContext& ctx);

// Runs `work` on the background executor after the delay (with a context of the same scope).
void AfterTransientDelay(OpContext& ctx, std::function<void(OpContext&)> work);

// ResourceInUseException for a table that is being created, updated or deleted (UpdateTable;
// DeleteTable passes `allow_updating`).
Status CheckTableChangeable(const TableDef& table, bool allow_updating);

// Removes a table with its items, and its vector indexes from memory.
Status DropTable(OpContext& ctx, const TableDef& table);
// Removes a deleted index's entries, and a vector index from memory (the table record no
// longer lists it). Nothing when the table is gone.
void DropIndexData(OpContext& ctx, const TableDef& owner, const IndexDef& index);

// The ends of the delayed phases. Each is a no-op when the table is gone (deleted meanwhile).
// CREATING → ACTIVE, for the table and the indexes created with it.
void ActivateTable(OpContext& ctx, uint64_t table_id);
// DELETING → dropped.
void FinishTableDeletion(OpContext& ctx, uint64_t table_id);
// UPDATING → ACTIVE; the indexes left DELETING are dropped.
void SettleTableUpdate(OpContext& ctx, uint64_t table_id);

}  // namespace ddbd::server::ops
