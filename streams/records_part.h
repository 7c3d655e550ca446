// RecordsPart: DynamoDB Streams' records, written by every item write to a table whose
// stream is enabled, in the write's own batch (storage/write.h) — so a change and its record
// commit together. A record carries the item's keys and the images the stream's view type
// asks for, the write's time, the service's identity for Time to Live deletions and whether
// the change was replicated from another replica of a global table; a write that leaves its
// item as it was records nothing, as on DynamoDB.
//
// Entry point: RecordsPart (registered once with storage).
#pragma once

#include "storage/write.h"

namespace ddbd::streams {

// The record of one change: its keys, event, time and authorship, with the new and old
// images when asked for and present (the stored encodings, not copied).
storage::StreamRecordDraft RecordOf(const storage::ItemChange& change, bool with_new_image,
                                    bool with_old_image);

class RecordsPart : public storage::WritePart {
 public:
  bool NeedsOldItem(const storage::ItemWrite&) const override { return false; }
  Status Contribute(const storage::ItemChange& change,
                    storage::WriteBatchBuilder& batch) const override;
};

}  // namespace ddbd::streams
