// Restores in slices on the background executor.
#include "server/ops/background_restore.h"

#include <chrono>
#include <memory>
#include <optional>

#include "backups/restore.h"
#include "model/log.h"
#include "server/ops/transient_status.h"

namespace ddbd::server::ops {
namespace {

// Items per slice: as for index backfills, other background work never waits long.
constexpr size_t kItemsPerSlice = 1000;
constexpr std::chrono::seconds kReportEvery{10};

struct RestoreJob {
  uint64_t table_id = 0;
  storage::BackupRecord backup;
  std::optional<PrimaryKey> after;  // the last item written
  uint64_t items_done = 0;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  log::ProgressCadence cadence{kReportEvery};
};

// One line about a restore: its table (the namespace left out for the default one), its
// backup, how far it is and — when it ended — how long it took.
void LogRestore(log::Level level, std::string_view message, const TableDef& table,
                const RestoreJob& job, std::optional<double> seconds = std::nullopt) {
  log::Event(level, message,
             {{"namespace", table.scope},
              {"table", table.name},
              {"backup", backups::BackupArn(job.backup)},
              {"items_done", static_cast<int64_t>(job.items_done)},
              {"items_total", job.backup.item_count},
              seconds ? log::Field("seconds", *seconds, 3) : log::Field("seconds", std::string())});
}

// A point-in-time copy serves one restore: it goes when the restore ends, either way.
// (Kept in the namespace of the table it was taken from, which its restore is in too.)
void ForgetPointInTimeCopy(Service& service, const RestoreJob& job) {
  if (!job.backup.point_in_time) return;
  service.db().DeleteBackup(job.backup.source.scope, job.backup.id).IgnoreError();
}

void RunSlice(Service& service, std::shared_ptr<RestoreJob> job) {
  if (service.executor().stopping()) return;  // starts over at the next start
  const auto table = service.catalog().FindById(job->table_id);
  if (!table || table->status != TableStatus::kCreating) {  // dropped meanwhile
    ForgetPointInTimeCopy(service, *job);
    return;
  }
  Result<std::optional<PrimaryKey>> last = backups::RestoreSlice(
      service.db(), job->backup, *table, job->after, kItemsPerSlice, job->items_done);
  if (!last.ok()) {
    LogRestore(log::Level::kError, "restore failed: " + last.error().message(), *table, *job);
    OpContext ctx(service, table->scope, table->region);
    DropTable(ctx, *table).IgnoreError();  // no half-restored table is left behind
    ForgetPointInTimeCopy(service, *job);
    return;
  }
  if (*last) {
    job->after = std::move(*last);
    if (auto level = job->cadence.Next()) LogRestore(*level, "restore progress", *table, *job);
    service.executor().Run([&service, job] { RunSlice(service, job); });
    return;
  }
  auto activated = service.catalog().Modify(job->table_id, [](TableDef& complete) {
    complete.status = TableStatus::kActive;
    return OkStatus();
  });
  if (!activated.ok()) return;  // dropped meanwhile
  ForgetPointInTimeCopy(service, *job);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - job->started;
  LogRestore(log::Level::kInfo, "restore finished", **activated, *job, took.count());
}

}  // namespace

void StartRestore(Service& service, uint64_t table_id, storage::BackupRecord backup) {
  auto job = std::make_shared<RestoreJob>();
  job->table_id = table_id;
  job->backup = std::move(backup);
  if (const auto table = service.catalog().FindById(table_id)) {
    LogRestore(log::Level::kInfo, "restore started", *table, *job);
  }
  service.executor().Run([&service, job] { RunSlice(service, job); });
}

}  // namespace ddbd::server::ops
