// Kinesis destination records in each item's write batch.
#include "kinesis/capture_part.h"

namespace ddbd::kinesis {

Status CapturePart::Contribute(const storage::ItemChange& change,
                               storage::WriteBatchBuilder& batch) const {
  const storage::ItemWrite& write = change.write;
  const KinesisDestination* destination = write.table->EnabledKinesisDestination();
  if (!destination || change.Unchanged()) return OkStatus();
  const storage::WriteOutcome& outcome = change.outcome;
  storage::StreamRecordDraft record;
  record.keys.emplace(write.table->partition_key.name, write.key.partition);
  if (write.table->sort_key && write.key.sort) {
    record.keys.emplace(write.table->sort_key->name, *write.key.sort);
  }
  record.event = !outcome.existed   ? storage::StreamEvent::kInsert
                 : outcome.new_item ? storage::StreamEvent::kModify
                                    : storage::StreamEvent::kRemove;
  if (outcome.new_item) record.new_image = change.new_encoding;
  if (outcome.existed) record.old_image = change.old_encoding;
  record.size_bytes = ItemSize(record.keys) + outcome.new_size + outcome.old_size;
  record.time_ms = change.time_ms;
  record.by_ttl = write.by_ttl;
  batch.AppendStreamRecord(destination->records_id, record);
  return OkStatus();
}

}  // namespace ddbd::kinesis
