// CapturePart: the changes of tables with an enabled Kinesis streaming destination, kept
// until the publisher delivers them. Every item write to such a table appends, in the
// write's own batch (storage/write.h), a record with the item's keys, both images, the
// write's time and whether Time to Live made it, under the destination's records id — so a
// change and its record commit together, whether or not the table has a DynamoDB stream. A
// write that leaves its item as it was records nothing.
//
// Entry point: CapturePart (registered once with storage, only when changes are delivered).
#pragma once

#include "storage/write.h"

namespace ddbd::kinesis {

class CapturePart : public storage::WritePart {
 public:
  bool NeedsOldItem(const storage::ItemWrite&) const override { return false; }
  Status Contribute(const storage::ItemChange& change,
                    storage::WriteBatchBuilder& batch) const override;
};

}  // namespace ddbd::kinesis
