// Start-up recovery: every table and index the catalog shows between states is driven to
// the state its (answered) request asked for, or — for a snapshot restore, whose request is
// answered only once complete — rolled back.
#include "server/ops/recovery.h"

#include <cstdio>
#include <set>

#include "backups/restore.h"
#include "model/log.h"
#include "server/control/handlers.h"
#include "server/ops/background_restore.h"
#include "server/ops/index_updates.h"
#include "server/ops/replica_changes.h"
#include "server/ops/transient_status.h"

namespace ddbd::server::ops {
namespace {

// RestoreTableFromBackup and a snapshot restore keep their tables CREATING until the last
// item is written.
bool IsUnfinishedRestore(const TableDef& table) {
  return table.status == TableStatus::kCreating && table.restored_from.has_value();
}

// The backup an unfinished restore was writing from; nullopt for a snapshot restore or a
// backup that is gone.
std::optional<storage::BackupRecord> BackupOfRestore(Service& service, const TableDef& table) {
  Result<std::vector<storage::BackupRecord>> backups = service.db().Backups(table.scope);
  if (!backups.ok()) return std::nullopt;
  std::string_view arn = table.restored_from->backup_arn;
  if (arn.starts_with(backups::kPointInTimeSource)) {
    arn.remove_prefix(backups::kPointInTimeSource.size());
  }
  for (storage::BackupRecord& backup : *backups) {
    if (backups::BackupArn(backup) == arn) return std::move(backup);
  }
  return std::nullopt;
}

// Runs `finish` now, or after the transient delay when delays are on (the phase the crash
// cut short starts over, as a client polling DescribeTable would expect).
void FinishPhase(OpContext& ctx, void (*finish)(OpContext&, uint64_t), uint64_t table_id) {
  if (!TransientStatuses(ctx)) return finish(ctx, table_id);
  AfterTransientDelay(ctx, [finish, table_id](OpContext& later) { finish(later, table_id); });
}

}  // namespace

void DropUnusedPointInTimeCopies(Service& service) {
  std::set<std::string, std::less<>> read_by_restores;  // their backup ARNs
  for (const auto& table : service.catalog().AllTables()) {
    if (IsUnfinishedRestore(*table)) read_by_restores.insert(table->restored_from->backup_arn);
  }
  Result<std::vector<storage::Database::ScopedBackup>> backups = service.db().AllBackups();
  if (!backups.ok()) return;  // the next start tries again
  for (const auto& [scope, backup] : *backups) {
    if (!backup.point_in_time ||
        read_by_restores.contains(std::string(backups::kPointInTimeSource) +
                                  backups::BackupArn(backup))) {
      continue;
    }
    log::Warning("deleting the point-in-time copy %llu of table %s, which no restore reads",
                 static_cast<unsigned long long>(backup.id), backup.source.name.c_str());
    service.db().DeleteBackup(scope, backup.id).IgnoreError();  // the next start tries again
  }
}

void ResumeInterruptedWork(Service& service) {
  DropUnusedPointInTimeCopies(service);
  control::DropUnownedSnapshotCopies(service);
  service.exports().ResumeInterrupted();
  service.bulk_operations().ResumeInterrupted();
  // A table an import is loading stays CREATING until the import ends.
  const std::set<uint64_t> importing = service.imports().ResumeInterrupted();
  for (const auto& table : service.catalog().AllTables()) {
    if (importing.contains(table->id)) continue;
    OpContext ctx(service, table->scope, table->region);
    if (IsUnfinishedRestore(*table)) {
      if (auto backup = BackupOfRestore(service, *table)) {
        StartRestore(service, table->id, *std::move(backup));
        continue;
      }
      log::Warning("rolling back the unfinished restore of table %s", table->name.c_str());
      DropTable(ctx, *table).IgnoreError();  // gone already: nothing to roll back
      continue;
    }
    SettleReplicas(ctx, *table);
    switch (table->status) {
      case TableStatus::kCreating:
        FinishPhase(ctx, ActivateTable, table->id);
        continue;
      case TableStatus::kDeleting:
        FinishPhase(ctx, FinishTableDeletion, table->id);
        continue;
      case TableStatus::kUpdating:
        FinishPhase(ctx, SettleTableUpdate, table->id);
        break;
      case TableStatus::kActive:
        break;
    }
    // Indexes added to an existing table: their backfill starts over.
    for (const auto& index : table->indexes) {
      if (index.status == IndexStatus::kCreating) StartBackfill(ctx, table->id, index.id);
    }
  }
}

}  // namespace ddbd::server::ops
