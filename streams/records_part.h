// RecordsPart: DynamoDB Streams' records, written by every item write to a table whose
// stream is enabled, in the write's own batch (storage/write.h) — so a change and its record
// commit together. A record carries the item's keys and the images the stream's view type
// asks for, the clock's time, and the service's identity for Time to Live deletions; a write
// that leaves its item as it was records nothing, as on DynamoDB.
//
// Entry point: RecordsPart (registered once with storage).
#pragma once

#include "model/clock.h"
#include "storage/write.h"

namespace ddbd::streams {

class RecordsPart : public storage::WritePart {
 public:
  explicit RecordsPart(const Clock& clock) : clock_(clock) {}

  bool NeedsOldItem(const storage::ItemWrite&) const override { return false; }
  Status Contribute(const storage::ItemChange& change,
                    storage::WriteBatchBuilder& batch) const override;

 private:
  const Clock& clock_;
};

}  // namespace ddbd::streams
