// On-demand backups as a subsystem: how a backup is named (its ARN), what a table restored
// from it is, and the restore of its items. The backup's items and record are kept by
// storage (Database::CopyItems, SaveBackup); the operations that expose them are in
// server/ops/backups.cc.
//
// Entry points: BackupArn, SaveCopy, RestoredDefinition, RestoreSlice, RestoreItems.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "model/result.h"
#include "model/table_def.h"
#include "storage/backup_record.h"
#include "storage/database.h"

namespace ddbd::backups {

// A table restored to a point in time names, in its restore source (TableDef::restored_from),
// the point-in-time copy it is written from as this prefix and the copy's ARN: not a backup
// of the user's (DescribeTable shows no SourceBackupArn), but found like one at a restart.
inline constexpr std::string_view kPointInTimeSource = "point-in-time:";

// "<source table ARN>/backup/<creation time in ms, 13 digits>-<the id in hex, 8 digits or
// more>", after the shape of DynamoDB's backup ARNs. Computed, never stored.
std::string BackupArn(const storage::BackupRecord& backup);

// Saves `backup` with the items `copy` stores under `backup.id` (it returns their count and
// DynamoDB size, which the record takes). The record is written first, marked point-in-time
// (never listed), then as given: items are never stored under an id no record names, and a
// crash between the two leaves a hidden record that the next start deletes with its items
// (server/ops/recovery.h). On failure the record and what was copied are deleted.
Status SaveCopy(storage::Database& db, std::string_view scope, storage::BackupRecord& backup,
                const std::function<Result<storage::TableStats>()>& copy);

// Where a restore puts its table, and when.
struct RestoreTarget {
  std::string scope;
  std::string name;
  std::string region;
  std::string table_uuid;
  int64_t now_ms = 0;
};

// The definition of a table restored from `backup`: the backup's keys, indexes (ACTIVE),
// billing and encryption settings — with `billing_override` applied — and, as DynamoDB
// does, not its streams, Time to Live, tags, point-in-time recovery or deletion
// protection. The table is CREATING (unreadable) until its items are in.
// Fails when the override asks for PROVISIONED without throughput (which DynamoDB requires).
Result<TableDef> RestoredDefinition(const storage::BackupRecord& backup,
                                    const RestoreTarget& target,
                                    std::optional<BillingMode> billing_override);

// Writes the items of `backup` that follow `after` (all from the first when nullopt), at most
// `max_items`, into `table` through the write path, a batch at a time, so that its indexes,
// statistics and item collections are built as for any write. Writing an item again writes
// the same item: a restore cut short can start over. `written` counts the items written.
// Returns the key of the last item written, nullopt when none followed `after`.
Result<std::optional<PrimaryKey>> RestoreSlice(storage::Database& db,
                                               const storage::BackupRecord& backup,
                                               const TableDef& table,
                                               const std::optional<PrimaryKey>& after,
                                               size_t max_items, uint64_t& written);

// Every item of `backup`, written into `table` as RestoreSlice writes them.
Status RestoreItems(storage::Database& db, const storage::BackupRecord& backup,
                    const TableDef& table);

}  // namespace ddbd::backups
