// Stream record retention.
#include "streams/retention.h"

#include "model/log.h"

namespace ddbd::streams {

void Retention::Start() {
  executor_.Run([this] { Pass(); });
}

void Retention::Pass() {
  if (auto trimmed = TrimOnce(clock_.NowMs()); !trimmed.ok()) {
    log::Warning("stream retention pass failed (retried later): %s",
                 trimmed.error().message().c_str());
  }
  executor_.RunAfter(interval_, [this] { Pass(); });
}

Result<uint64_t> Retention::TrimOnce(int64_t now_ms) {
  uint64_t trimmed = 0;
  for (const auto& table : catalog_.AllTables()) {
    for (const StreamSpec& stream : table->streams) {
      if (executor_.stopping()) return trimmed;
      DDBD_ASSIGN_OR_RETURN(uint64_t count, db_.TrimStream(stream.id, now_ms - kRetentionMs));
      trimmed += count;
    }
  }
  return trimmed;
}

}  // namespace ddbd::streams
