// Stream record retention.
#include "streams/retention.h"

namespace ddbd::streams {

void Retention::Start() {
  RunEvery(executor_, interval_, "stream retention", [this] {
    Result<uint64_t> trimmed = TrimOnce(clock_.NowMs());
    return trimmed.ok() ? OkStatus() : Status(trimmed.error());
  });
}

Result<uint64_t> Retention::TrimOnce(int64_t now_ms) {
  uint64_t trimmed = 0;
  for (const auto& table : catalog_.AllTables()) {
    if (before_trim_ && table->replication) {
      DDBD_RETURN_IF_ERROR(before_trim_(*table, now_ms - kRetentionMs));
    }
    for (const StreamSpec& stream : table->streams) {
      if (executor_.stopping()) return trimmed;
      DDBD_ASSIGN_OR_RETURN(uint64_t count, db_.TrimStream(stream.id, now_ms - kRetentionMs));
      trimmed += count;
    }
  }
  return trimmed;
}

}  // namespace ddbd::streams
