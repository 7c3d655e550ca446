// An on-demand backup as storage keeps it: the table's definition as it was, with the
// backup's name, time and size. Its items are stored under `id` (Database::CopyItems).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/table_def.h"

namespace ddbd::storage {

struct BackupRecord {
  uint64_t id = 0;  // also the id its items are stored under
  std::string name;
  int64_t created_ms = 0;
  int64_t size_bytes = 0;
  int64_t item_count = 0;
  TableDef source;  // the table as it was backed up
  // Never listed: the state of `source` at a point in time that a RestoreTableToPointInTime
  // writes from (deleted when the restore ends), or a CreateBackup's copy while it is made
  // (backups::SaveCopy). One no unfinished restore names is deleted at start-up.
  bool point_in_time = false;
};

// A saved namespace (the control API's snapshots): each table's definition and a copy of its
// items, as backup records whose items are stored under their ids.
struct SnapshotRecord {
  std::string scope;  // the namespace it was saved from
  std::string name;
  int64_t created_ms = 0;
  std::vector<BackupRecord> tables;
};

}  // namespace ddbd::storage
