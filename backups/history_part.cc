// Point-in-time recovery history in each item's write batch.
#include "backups/history_part.h"

namespace ddbd::backups {

Status HistoryPart::Contribute(const storage::ItemChange& change,
                               storage::WriteBatchBuilder& batch) const {
  const TableDef& table = *change.write.table;
  if (table.pitr_history_id == 0 || change.Unchanged()) return OkStatus();
  batch.AppendHistory(table.pitr_history_id, change.time_ms, change.old_encoding);
  return OkStatus();
}

}  // namespace ddbd::backups
