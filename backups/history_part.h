// HistoryPart: point-in-time recovery's history, written by every item write to a table with
// PITR enabled, in the write's own batch (storage/write.h): the item as it was before the
// write, at the write's time (the database's clock). The state of the table at any time T of the
// recovery window is then its live items with, for each item written since T, the old image of its
// first write after T (storage: Database::ReadHistoryAfter). A write that leaves its item as it was
// records nothing.
//
// Entry point: HistoryPart (registered once with storage).
#pragma once

#include "storage/write.h"

namespace ddbd::backups {

class HistoryPart : public storage::WritePart {
 public:
  bool NeedsOldItem(const storage::ItemWrite&) const override { return false; }
  Status Contribute(const storage::ItemChange& change,
                    storage::WriteBatchBuilder& batch) const override;
};

}  // namespace ddbd::backups
