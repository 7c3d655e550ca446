// Restores from on-demand backups in the background, as DynamoDB runs them:
// RestoreTableFromBackup answers at once with its table CREATING (RestoreSummary's
// RestoreInProgress true), and the backup's items are written here, in slices on the
// background executor, before the table becomes ACTIVE. The log says how far a restore is:
// its start and end at info level, a line per slice at debug level, one every 10 seconds at
// info level.
//
// A restore stops when its table is dropped meanwhile (a namespace deleted or replaced by a
// snapshot); one that fails drops its table, so that no half-restored table is left (logged
// as an error); one cut short by a crash starts over at the next start (ResumeInterruptedWork).
//
// Entry point: StartRestore.
#pragma once

#include <cstdint>

#include "server/service.h"
#include "storage/backup_record.h"

namespace ddbd::server::ops {

// Writes the items of `backup` into table `table_id` (CREATING, restored from it) and then
// makes the table ACTIVE.
void StartRestore(Service& service, uint64_t table_id, storage::BackupRecord backup);

}  // namespace ddbd::server::ops
