// Delayed state changes of tables and indexes.
#include "server/ops/transient_status.h"

namespace ddbd::server::ops {

bool TransientStatuses(const OpContext& ctx) {
  return ctx.options().transient_status_delay.count() > 0;
}

void AfterTransientDelay(OpContext& ctx, std::function<void(OpContext&)> work) {
  Service& service = ctx.service();
  OpContext later(service, ctx.scope(), ctx.region());
  service.executor().RunAfter(service.options().transient_status_delay,
                              [later, work = std::move(work)]() mutable { work(later); });
}

Status CheckTableChangeable(const TableDef& table, bool allow_updating) {
  const char* state = nullptr;
  switch (table.status) {
    case TableStatus::kCreating:
      state = "created";
      break;
    case TableStatus::kDeleting:
      state = "deleted";
      break;
    case TableStatus::kUpdating:
      state = allow_updating ? nullptr : "updated";
      break;
    case TableStatus::kActive:
      break;
  }
  if (!state) return OkStatus();
  return Error::ResourceInUse(
      "Attempt to change a resource which is still in use: Table is being " + std::string(state) +
      ": " + table.name);
}

Status DropTable(OpContext& ctx, const TableDef& table) {
  DDBD_RETURN_IF_ERROR(ctx.catalog().Drop(table));
  for (const auto& index : table.indexes) {
    if (index.IsVector()) ctx.service().vectors().Drop(index.id);
  }
  // Their figures go with the table, whether or not anyone reads them again.
  ctx.service().metrics().ForgetTable(table.id);
  ctx.service().access_patterns().ForgetTable(table.id);
  return OkStatus();
}

void DropIndexData(OpContext& ctx, const TableDef& owner, const IndexDef& index) {
  ctx.db().DropIndex(owner, index.id).IgnoreError();  // the table may be gone
  if (index.IsVector()) ctx.service().vectors().Drop(index.id);
}

void ActivateTable(OpContext& ctx, uint64_t table_id) {
  auto activated = ctx.catalog().Modify(table_id, [](TableDef& created) {
    created.status = TableStatus::kActive;
    for (auto& index : created.indexes) index.status = IndexStatus::kActive;
    return OkStatus();
  });
  activated.IgnoreError();  // deleted before it was ever ACTIVE
}

void FinishTableDeletion(OpContext& ctx, uint64_t table_id) {
  if (auto current = ctx.catalog().FindById(table_id)) {
    DropTable(ctx, *current).IgnoreError();  // dropped meanwhile? then nothing is left to do
  }
}

void SettleTableUpdate(OpContext& ctx, uint64_t table_id) {
  std::vector<IndexDef> dropped;
  auto settled = ctx.catalog().Modify(table_id, [&](TableDef& current) {
    current.status = TableStatus::kActive;
    std::erase_if(current.indexes, [&](const IndexDef& index) {
      if (index.status != IndexStatus::kDeleting) return false;
      dropped.push_back(index);
      return true;
    });
    return OkStatus();
  });
  if (!settled.ok()) return;  // the table was deleted meanwhile
  for (const auto& index : dropped) DropIndexData(ctx, **settled, index);
}

}  // namespace ddbd::server::ops
