// The system clock and the controllable clock.
#include "model/clock.h"

#include <chrono>
#include <optional>
#include <string>

#include "model/utf8.h"

namespace ddbd {
namespace {

class SystemClock : public Clock {
 public:
  int64_t NowMs() const override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

}  // namespace

const Clock& Clock::System() {
  static const SystemClock clock;
  return clock;
}

int64_t ControllableClock::NowMs() const {
  const int64_t frozen = frozen_at_ms_.load(std::memory_order_acquire);
  if (frozen != kRunning) return frozen;
  return base_.NowMs() + offset_ms_.load(std::memory_order_relaxed);
}

ControllableClock::Mode ControllableClock::mode() const {
  if (frozen_at_ms_.load(std::memory_order_acquire) != kRunning) return Mode::kFrozen;
  return offset_ms_.load(std::memory_order_relaxed) == 0 ? Mode::kSystem : Mode::kOffset;
}

Status ControllableClock::Freeze(int64_t now_ms) {
  std::lock_guard lock(change_);
  const int64_t current = NowMs();
  if (now_ms < current) {
    return Error::Validation("the clock cannot move backwards: " + std::to_string(now_ms) +
                             " ms is earlier than its reading, " + std::to_string(current) +
                             " ms since the epoch");
  }
  frozen_at_ms_.store(now_ms, std::memory_order_release);
  return OkStatus();
}

void ControllableClock::FreezeNow() {
  std::lock_guard lock(change_);
  frozen_at_ms_.store(NowMs(), std::memory_order_release);
}

Status ControllableClock::Advance(int64_t ms) {
  if (ms < 0) return Error::Validation("the clock cannot move backwards: Advance must be >= 0");
  std::lock_guard lock(change_);
  const int64_t frozen = frozen_at_ms_.load(std::memory_order_acquire);
  if (frozen != kRunning) {
    frozen_at_ms_.store(frozen + ms, std::memory_order_release);
  } else {
    offset_ms_.fetch_add(ms, std::memory_order_relaxed);
  }
  return OkStatus();
}

void ControllableClock::Run() {
  std::lock_guard lock(change_);
  const int64_t frozen = frozen_at_ms_.load(std::memory_order_acquire);
  if (frozen == kRunning) return;
  // Never below the frozen reading: the base clock has moved on since the freeze.
  offset_ms_.store(frozen - base_.NowMs(), std::memory_order_relaxed);
  frozen_at_ms_.store(kRunning, std::memory_order_release);
}

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// Reads exactly `width` digits at `pos`.
std::optional<int64_t> Digits(std::string_view text, size_t& pos, size_t width) {
  if (pos + width > text.size()) return std::nullopt;
  int64_t value = 0;
  for (size_t i = 0; i < width; ++i) {
    const char c = text[pos + i];
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  pos += width;
  return value;
}

// Milliseconds of a fraction after a '.' at `pos` (at least one digit; beyond three ignored).
std::optional<int64_t> FractionMs(std::string_view text, size_t& pos) {
  if (pos >= text.size() || text[pos] != '.') return 0;
  ++pos;
  int64_t ms = 0;
  size_t digits = 0;
  for (; pos < text.size() && text[pos] >= '0' && text[pos] <= '9'; ++pos, ++digits) {
    if (digits < 3) ms = ms * 10 + (text[pos] - '0');
  }
  if (digits == 0) return std::nullopt;
  for (size_t i = digits; i < 3; ++i) ms *= 10;
  return ms;
}

std::optional<int64_t> EpochSecondsMs(std::string_view text) {
  size_t pos = 0;
  int64_t seconds = 0;
  for (; pos < text.size() && text[pos] >= '0' && text[pos] <= '9'; ++pos) {
    if (seconds > 1'000'000'000'000) return std::nullopt;  // beyond any useful time
    seconds = seconds * 10 + (text[pos] - '0');
  }
  if (pos == 0) return std::nullopt;
  std::optional<int64_t> fraction = FractionMs(text, pos);
  if (!fraction || pos != text.size()) return std::nullopt;
  return seconds * 1000 + *fraction;
}

std::optional<int64_t> IsoMs(std::string_view text) {
  size_t pos = 0;
  auto year = Digits(text, pos, 4);
  if (!year || pos >= text.size() || text[pos++] != '-') return std::nullopt;
  auto month = Digits(text, pos, 2);
  if (!month || pos >= text.size() || text[pos++] != '-') return std::nullopt;
  auto day = Digits(text, pos, 2);
  if (!day || *month < 1 || *month > 12 || *day < 1 || *day > 31) return std::nullopt;
  const int64_t days = DaysFromCivil(*year, *month, *day);
  if (pos == text.size()) return days * 86'400'000;
  if (text[pos] != 'T' && text[pos] != 't' && text[pos] != ' ') return std::nullopt;
  ++pos;
  auto hour = Digits(text, pos, 2);
  if (!hour || pos >= text.size() || text[pos++] != ':') return std::nullopt;
  auto minute = Digits(text, pos, 2);
  if (!minute || pos >= text.size() || text[pos++] != ':') return std::nullopt;
  auto second = Digits(text, pos, 2);
  std::optional<int64_t> fraction = second ? FractionMs(text, pos) : std::nullopt;
  if (!fraction || *hour > 23 || *minute > 59 || *second > 60) return std::nullopt;
  int64_t zone_minutes = 0;
  if (pos < text.size() && (text[pos] == 'Z' || text[pos] == 'z')) {
    ++pos;
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    const int64_t sign = text[pos++] == '+' ? 1 : -1;
    auto zone_hours = Digits(text, pos, 2);
    if (pos < text.size() && text[pos] == ':') ++pos;
    auto zone_mins = Digits(text, pos, 2);
    if (!zone_hours || !zone_mins || *zone_hours > 23 || *zone_mins > 59) return std::nullopt;
    zone_minutes = sign * (*zone_hours * 60 + *zone_mins);
  }
  if (pos != text.size()) return std::nullopt;
  const int64_t seconds = days * 86'400 + *hour * 3600 + *minute * 60 + *second;
  return (seconds - zone_minutes * 60) * 1000 + *fraction;
}

}  // namespace

Result<int64_t> ParseTimeMs(std::string_view text) {
  std::optional<int64_t> ms = text.find('-') != std::string_view::npos && text.size() >= 10
                                  ? IsoMs(text)
                                  : EpochSecondsMs(text);
  if (!ms || *ms < 0) {
    return Error::Validation("not a time: '" + QuotableUtf8(text, 64) +
                             "' (expected epoch seconds or ISO 8601, e.g. "
                             "2024-03-01T12:00:00Z)");
  }
  return *ms;
}

const char* ClockModeName(ControllableClock::Mode mode) {
  switch (mode) {
    case ControllableClock::Mode::kSystem:
      return "system";
    case ControllableClock::Mode::kFrozen:
      return "frozen";
    case ControllableClock::Mode::kOffset:
      return "offset";
  }
  return "system";
}

}  // namespace ddbd
