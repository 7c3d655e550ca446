// An on-demand backup as storage keeps it: the table's definition as it was, with the
// backup's name, time and size. Its items are stored under `id` (Database::CopyItems).
#pragma once

#include <cstdint>
#include <string>

#include "model/table_def.h"

namespace ddbd::storage {

struct BackupRecord {
  uint64_t id = 0;  // also the id its items are stored under
  std::string name;
  int64_t created_ms = 0;
  int64_t size_bytes = 0;
  int64_t item_count = 0;
  TableDef source;  // the table as it was backed up
};

}  // namespace ddbd::storage
