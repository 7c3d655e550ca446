// Delayed state changes of tables and indexes.
#include "server/ops/transient_status.h"

#include <cstdio>
#include <thread>

namespace ddbd::server::ops {

bool TransientStatuses(const OpContext& ctx) {
  return ctx.options().transient_status_delay.count() > 0;
}

void AfterTransientDelay(OpContext& ctx, uint64_t table_id,
                         std::function<bool(TableDef&, OpContext&)> change) {
  Service& service = ctx.service();
  OpContext later(service, ctx.scope(), ctx.region());
  service.RunInBackground([later, table_id, change = std::move(change)]() mutable {
    std::this_thread::sleep_for(later.options().transient_status_delay);
    auto current = later.catalog().FindById(table_id);
    if (!current) return;
    TableDef updated = *current;
    if (!change(updated, later)) return;
    if (Status stored = later.catalog().Replace(updated); !stored.ok()) {
      std::fprintf(stderr, "ddbd: delayed change of table %s: %s\n", updated.name.c_str(),
                   stored.error().message().c_str());
    }
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
