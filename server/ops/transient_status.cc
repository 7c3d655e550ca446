// Delayed state changes of tables and indexes.
#include "server/ops/transient_status.h"

#include <thread>

namespace ddbd::server::ops {

bool TransientStatuses(const OpContext& ctx) {
  return ctx.options().transient_status_delay.count() > 0;
}

void AfterTransientDelay(OpContext& ctx, std::function<void(OpContext&)> work) {
  Service& service = ctx.service();
  OpContext later(service, ctx.scope(), ctx.region());
  service.RunInBackground([later, work = std::move(work)]() mutable {
    std::this_thread::sleep_for(later.options().transient_status_delay);
    work(later);
  });
}

Status CheckTableChangeable(const TableDef& table, bool allow_updating) {
  const char* state = nullptr;
  switch (table.status) {
    case TableStatus::kCreating: state = "created"; break;
    case TableStatus::kDeleting: state = "deleted"; break;
    case TableStatus::kUpdating: state = allow_updating ? nullptr : "updated"; break;
    case TableStatus::kActive: break;
  }
  if (!state) return OkStatus();
  return Error::ResourceInUse("Attempt to change a resource which is still in use: Table is being " +
                              std::string(state) + ": " + table.name);
}

}  // namespace ddbd::server::ops
