// Stream records in each item's write batch.
#include "streams/records_part.h"

namespace ddbd::streams {

storage::StreamRecordDraft RecordOf(const storage::ItemChange& change, bool with_new_image,
                                    bool with_old_image) {
  const storage::ItemWrite& write = change.write;
  const storage::WriteOutcome& outcome = change.outcome;
  storage::StreamRecordDraft record;
  record.keys.emplace(write.table->partition_key.name, write.key.partition);
  if (write.table->sort_key && write.key.sort) {
    record.keys.emplace(write.table->sort_key->name, *write.key.sort);
  }
  record.event = !outcome.existed   ? storage::StreamEvent::kInsert
                 : outcome.new_item ? storage::StreamEvent::kModify
                                    : storage::StreamEvent::kRemove;
  if (with_new_image && outcome.new_item) record.new_image = change.new_encoding;
  if (with_old_image && outcome.existed) record.old_image = change.old_encoding;
  record.size_bytes = ItemSize(record.keys) + (record.new_image.empty() ? 0 : outcome.new_size) +
                      (record.old_image.empty() ? 0 : outcome.old_size);
  record.time_ms = change.time_ms;
  record.by_ttl = write.by_ttl;
  record.replicated = write.replicated_from.has_value();
  return record;
}

Status RecordsPart::Contribute(const storage::ItemChange& change,
                               storage::WriteBatchBuilder& batch) const {
  const TableDef& table = *change.write.table;
  const StreamSpec* stream = table.EnabledStream();
  if (!stream || change.Unchanged()) return OkStatus();
  const StreamViewType view = stream->view_type;
  // A global table's records always carry the new image: replication reads it (GetRecords
  // shows only what the view type asks for).
  const bool with_new = view == StreamViewType::kNewImage ||
                        view == StreamViewType::kNewAndOldImages || table.replication.has_value();
  const bool with_old =
      view == StreamViewType::kOldImage || view == StreamViewType::kNewAndOldImages;
  batch.AppendStreamRecord(stream->id, RecordOf(change, with_new, with_old));
  return OkStatus();
}

}  // namespace ddbd::streams
