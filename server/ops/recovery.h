// Start-up recovery of background work that a crash (SIGKILL, power loss) interrupted, so
// that no table or index stays between states forever.
// Entry point: ResumeInterruptedWork.
#pragma once

#include "server/service.h"

namespace ddbd::server::ops {

// Called once at start-up, before serving. Tables and indexes in a delayed phase complete
// it (after the delay again, when delays are on); index backfills and restores from backups
// start over (they skip or rewrite what was already written); a snapshot restore that had
// not finished — its request was never answered — or a restore whose backup is gone is
// rolled back, leaving no partial table.
// Copies of tables that nothing will read go first, with their data: point-in-time copies no
// unfinished restore reads (RestoreTableToPointInTime or CreateBackup cut short between their
// copy's first record and their answer, or a restore between its last item and its copy's
// deletion) and snapshot copies no snapshot owns (a save or delete of one cut short).
void ResumeInterruptedWork(Service& service);

// That first step on its own: deletes every point-in-time copy (storage::BackupRecord) that no
// CREATING restored table names. Only at start-up: a running request may own one.
void DropUnusedPointInTimeCopies(Service& service);

}  // namespace ddbd::server::ops
