// Clock: the one source of wall-clock time for DynamoDB's time-dependent behaviour — item
// and stream-record timestamps, Time to Live expiry, stream retention and iterator expiry,
// the ClientRequestToken window, CreationDateTime and every other time ddbd reports.
// Durations that are not DynamoDB time (HTTP timeouts, back-off, timing of log lines) use
// std::chrono::steady_clock directly, and SigV4 signatures are checked against the system
// clock, which is what the client signed with.
//
// Entry points: Clock::System(), ManualClock (tests), ControllableClock (the server's clock,
// which the control API freezes, advances and lets run again).
// Thread-safety: every Clock may be read from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string_view>

#include "model/result.h"

namespace ddbd {

class Clock {
 public:
  virtual ~Clock() = default;
  // Milliseconds since the Unix epoch.
  virtual int64_t NowMs() const = 0;
  // Whether a test has taken this clock over (frozen or moved it): then time-driven work
  // that would race the test's own steps, like periodic TTL passes, waits to be asked.
  virtual bool UnderTestControl() const { return false; }

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

// The server's clock: a base clock (the system's) read as is, moved forward by an offset, or
// frozen at one reading. Tests of TTL, stream retention, iterator expiry, ClientRequestToken
// windows and timestamps drive it through the control API (`/ddbd/clock`).
//
// Contract: for a running server time never moves backwards. Freezing earlier than the current
// reading and advancing by a negative amount are refused; Run continues from the frozen
// reading. (The base clock itself may step back, as the system clock can; that is not ours to
// hide.) Resolution: milliseconds.
class ControllableClock : public Clock {
 public:
  enum class Mode { kSystem, kFrozen, kOffset };

  // Frozen at `frozen_at_ms` when given (any time, the past too: the server has not yet
  // reported a time), else following `base`. REQUIRES: `base` outlives this clock.
  explicit ControllableClock(const Clock& base = Clock::System(),
                             std::optional<int64_t> frozen_at_ms = std::nullopt)
      : base_(base), frozen_at_ms_(frozen_at_ms.value_or(kRunning)) {}

  int64_t NowMs() const override;
  bool UnderTestControl() const override { return mode() != Mode::kSystem; }
  Mode mode() const;

  // Stops the clock at `now_ms`. ValidationException if that is earlier than now.
  Status Freeze(int64_t now_ms);
  // Stops the clock at its current reading.
  void FreezeNow();
  // Moves the clock forward by `ms` (≥ 0): a frozen clock stays frozen at the later reading, a
  // running one keeps running from it.
  Status Advance(int64_t ms);
  // Lets a frozen clock run again at the base clock's speed from where it stands (mode kOffset,
  // or kSystem when that is the base clock's own reading). Nothing for a running clock.
  void Run();

 private:
  static constexpr int64_t kRunning = INT64_MIN;

  const Clock& base_;
  std::mutex change_;  // serialises the changes; readers take no lock
  // Written before frozen_at_ when a frozen clock starts running, so a reader that sees
  // kRunning also sees the offset it runs with.
  std::atomic<int64_t> offset_ms_{0};
  std::atomic<int64_t> frozen_at_ms_{kRunning};
};

// A time as users write it, in milliseconds since the epoch: epoch seconds ("1700000000",
// fractions allowed: "1700000000.25") or ISO 8601 — a date ("2024-03-01", midnight UTC) or a
// date and time with seconds, optional fractions and a zone ("2024-03-01T12:00:00Z",
// "2024-03-01T12:00:00.5+01:00"; none means UTC). ValidationException otherwise.
Result<int64_t> ParseTimeMs(std::string_view text);

// The name a clock mode has in the control API: "system", "frozen" or "offset".
const char* ClockModeName(ControllableClock::Mode mode);

}  // namespace ddbd
