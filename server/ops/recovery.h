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
void ResumeInterruptedWork(Service& service);

}  // namespace ddbd::server::ops
