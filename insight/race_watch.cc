// Tracking reads and writes per item for RaceWatch's verdicts.
#include "insight/race_watch.h"

namespace ddbd::insight {

void RaceWatch::Read(uint64_t item) {
  auto found = items_.find(item);
  if (found == items_.end()) {
    if (order_.size() < capacity_) {
      order_.push_back(item);
    } else {
      items_.erase(order_[oldest_]);
      order_[oldest_] = item;
      oldest_ = (oldest_ + 1) % capacity_;
    }
    found = items_.emplace(item, State{}).first;
  }
  ++found->second.reads;
}

RaceWatch::Verdict RaceWatch::Write(uint64_t item, bool blind, int64_t now_ms) {
  const auto found = items_.find(item);
  if (found == items_.end()) return Verdict::kOther;  // not read lately: nothing to derive from
  State& state = found->second;
  if (state.stale > 0 && now_ms - state.stale_since_ms > kStaleForMs) state.stale = 0;
  Verdict verdict = Verdict::kOther;
  if (blind && state.stale > 0) {
    verdict = Verdict::kLostUpdate;
    --state.stale;
  } else if (state.reads > 0) {
    --state.reads;
    if (blind) verdict = Verdict::kReadModifyWrite;
  } else if (state.stale > 0) {
    --state.stale;  // a guarded write by a stale reader: its condition decides
  }
  if (state.reads > 0) {
    state.stale += state.reads;
    state.reads = 0;
    state.stale_since_ms = now_ms;
  }
  return verdict;
}

}  // namespace ddbd::insight
