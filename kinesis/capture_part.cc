// Kinesis destination records in each item's write batch.
#include "kinesis/capture_part.h"

#include "streams/records_part.h"

namespace ddbd::kinesis {

Status CapturePart::Contribute(const storage::ItemChange& change,
                               storage::WriteBatchBuilder& batch) const {
  const KinesisDestination* destination = change.write.table->EnabledKinesisDestination();
  if (!destination || change.Unchanged()) return OkStatus();
  batch.AppendStreamRecord(destination->records_id,
                           streams::RecordOf(change, /*with_new_image=*/true,
                                             /*with_old_image=*/true));
  return OkStatus();
}

}  // namespace ddbd::kinesis
