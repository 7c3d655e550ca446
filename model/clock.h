// Clock: the one source of wall-clock time for DynamoDB's time-dependent behaviour — item
// and stream-record timestamps, Time to Live expiry, stream retention and iterator expiry,
// the ClientRequestToken window, CreationDateTime and every other time ddbd reports.
// Durations that are not DynamoDB time (HTTP timeouts, back-off, timing of log lines) use
// std::chrono::steady_clock directly, and SigV4 signatures are checked against the system
// clock, which is what the client signed with.
//
// Entry points: Clock::System(), ManualClock (tests).
// Thread-safety: every Clock may be read from any thread.
#pragma once

#include <atomic>
#include <cstdint>

namespace ddbd {

class Clock {
 public:
  virtual ~Clock() = default;
  // Milliseconds since the Unix epoch.
  virtual int64_t NowMs() const = 0;

  // The operating system's clock. Lives for the whole process.
  static const Clock& System();
};

// A clock that only moves when told to: deterministic time for tests.
class ManualClock : public Clock {
 public:
  explicit ManualClock(int64_t now_ms) : now_ms_(now_ms) {}
  int64_t NowMs() const override { return now_ms_.load(std::memory_order_relaxed); }
  void Set(int64_t now_ms) { now_ms_.store(now_ms, std::memory_order_relaxed); }
  void Advance(int64_t ms) { now_ms_.fetch_add(ms, std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> now_ms_;
};

}  // namespace ddbd
