// Backup ARNs, restored definitions and the restore of a backup's items.
#include "backups/restore.h"

#include <cinttypes>
#include <cstdio>
#include <vector>

namespace ddbd::backups {
namespace {

// Items per WriteItems call of a restore: large enough to amortise a batch, small enough
// that a restore never holds many item locks at once.
constexpr size_t kRestoreBatch = 100;

}  // namespace

std::string BackupArn(const storage::BackupRecord& backup) {
  char suffix[48];
  std::snprintf(suffix, sizeof suffix, "/backup/%013" PRId64 "-%08" PRIx64, backup.created_ms,
                backup.id);
  return backup.source.Arn() + suffix;
}

Result<TableDef> RestoredDefinition(const storage::BackupRecord& backup,
                                    const RestoreTarget& target,
                                    std::optional<BillingMode> billing_override) {
  TableDef definition = backup.source;
  definition.scope = target.scope;
  definition.name = target.name;
  definition.region = target.region;
  definition.table_uuid = target.table_uuid;
  definition.creation_time_ms = target.now_ms;
  definition.status = TableStatus::kCreating;
  definition.streams.clear();
  definition.ttl_attribute.reset();
  definition.ttl_indexed = false;
  definition.tags.clear();
  definition.pitr_enabled_ms = 0;
  definition.pitr_history_id = 0;
  definition.deletion_protection = false;
  definition.policy.reset();  // a resource-based policy is not restored (streams' go with them)
  definition.replication.reset();           // a restored table is regional
  definition.kinesis_destinations.clear();  // nor are Kinesis streaming destinations
  definition.restored_from =
      TableRestoreSource{BackupArn(backup), backup.source.Arn(), target.now_ms};
  for (IndexDef& index : definition.indexes) {
    index.status = IndexStatus::kActive;
    index.backfilling = false;
  }
  if (billing_override == BillingMode::kPayPerRequest &&
      definition.billing_mode != BillingMode::kPayPerRequest) {
    definition.billing_mode = BillingMode::kPayPerRequest;
    definition.billing_mode_updated_ms = target.now_ms;
    definition.throughput = {};
  } else if (billing_override == BillingMode::kProvisioned &&
             definition.billing_mode != BillingMode::kProvisioned) {
    return Error::Validation(
        "ProvisionedThroughputOverride is required to restore a PAY_PER_REQUEST backup as "
        "PROVISIONED");
  }
  return definition;
}

Result<std::optional<PrimaryKey>> RestoreSlice(storage::Database& db,
                                               const storage::BackupRecord& backup,
                                               const TableDef& table,
                                               const std::optional<PrimaryKey>& after,
                                               size_t max_items, uint64_t& written) {
  TableDef copy = backup.source;
  copy.id = backup.id;  // the items are stored under the backup's id
  std::optional<storage::StartKey> start;
  if (after) start = storage::StartKey{*after, {}, {}};
  auto cursor = db.ScanHashRange(copy, 0, UINT64_MAX, start);
  std::vector<Item> items;
  std::optional<PrimaryKey> last;
  auto flush = [&]() -> Status {
    std::vector<storage::ItemWrite> writes;
    for (Item& item : items) {
      PrimaryKey key = KeyOf(table, item);
      writes.push_back(storage::Replacement(table, std::move(key), std::move(item)));
    }
    written += items.size();
    items.clear();
    auto done = db.WriteItems(std::move(writes));
    if (!done.ok()) return std::move(done).error();
    return OkStatus();
  };
  for (size_t read = 0; cursor->Valid() && read < max_items; cursor->Next(), ++read) {
    DDBD_ASSIGN_OR_RETURN(Item item, cursor->item());
    last = KeyOf(copy, item);
    items.push_back(std::move(item));
    if (items.size() == kRestoreBatch) DDBD_RETURN_IF_ERROR(flush());
  }
  DDBD_RETURN_IF_ERROR(cursor->status());
  DDBD_RETURN_IF_ERROR(flush());
  return last;
}

Status RestoreItems(storage::Database& db, const storage::BackupRecord& backup,
                    const TableDef& table) {
  std::optional<PrimaryKey> after;
  uint64_t written = 0;
  do {
    DDBD_ASSIGN_OR_RETURN(after, RestoreSlice(db, backup, table, after, SIZE_MAX, written));
  } while (after);
  return OkStatus();
}

Status SaveCopy(storage::Database& db, std::string_view scope, storage::BackupRecord& backup,
                const std::function<Result<storage::TableStats>()>& copy) {
  storage::BackupRecord in_progress = backup;
  in_progress.point_in_time = true;
  DDBD_RETURN_IF_ERROR(db.PutBackup(scope, in_progress));
  Result<storage::TableStats> copied = copy();
  Status saved = copied.ok() ? OkStatus() : Status(copied.error());
  if (saved.ok()) {
    backup.item_count = copied->item_count;
    backup.size_bytes = copied->size_bytes;
    saved = db.PutBackup(scope, backup);
  }
  if (!saved.ok()) db.DeleteBackup(scope, backup.id).IgnoreError();
  return saved;
}

}  // namespace ddbd::backups
