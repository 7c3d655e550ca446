// Start-up recovery of background work that a crash (SIGKILL, power loss) interrupted, so
// that no table or index stays between states forever.
// Entry point: ResumeInterruptedWork.
#pragma once

#include "server/service.h"

namespace ddbd::server::ops {

// Called once at start-up, before serving. Tables and indexes in a delayed phase complete
// it (after the delay again, when delays are on); index backfills start over (they skip the
// entries already written); a restore that had not finished is rolled back (its request was
// never answered), leaving no partial table.
void ResumeInterruptedWork(Service& service);

}  // namespace ddbd::server::ops
