// Stream records in each item's write batch.
#include "streams/records_part.h"

namespace ddbd::streams {

Status RecordsPart::Contribute(const storage::ItemChange& change,
                               storage::WriteBatchBuilder& batch) const {
  const storage::ItemWrite& write = change.write;
  const StreamSpec* stream = write.table->EnabledStream();
  if (!stream || change.Unchanged()) return OkStatus();
  const storage::WriteOutcome& outcome = change.outcome;
  storage::StreamRecordDraft record;
  record.keys.emplace(write.table->partition_key.name, write.key.partition);
  if (write.table->sort_key && write.key.sort) {
    record.keys.emplace(write.table->sort_key->name, *write.key.sort);
  }
  record.event = !outcome.existed   ? storage::StreamEvent::kInsert
                 : outcome.new_item ? storage::StreamEvent::kModify
                                    : storage::StreamEvent::kRemove;
  const StreamViewType view = stream->view_type;
  // A global table's records always carry the new image: replication reads it (GetRecords
  // shows only what the view type asks for).
  const bool wants_new = view == StreamViewType::kNewImage ||
                         view == StreamViewType::kNewAndOldImages ||
                         write.table->replication.has_value();
  const bool wants_old =
      view == StreamViewType::kOldImage || view == StreamViewType::kNewAndOldImages;
  if (wants_new && outcome.new_item) record.new_image = change.new_encoding;
  if (wants_old && outcome.existed) record.old_image = change.old_encoding;
  record.size_bytes = ItemSize(record.keys) + (record.new_image.empty() ? 0 : outcome.new_size) +
                      (record.old_image.empty() ? 0 : outcome.old_size);
  record.time_ms = change.time_ms;
  record.by_ttl = write.by_ttl;
  record.replicated = write.replicated_from.has_value();
  batch.AppendStreamRecord(stream->id, record);
  return OkStatus();
}

}  // namespace ddbd::streams
