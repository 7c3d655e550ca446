// The process's log: one line per event on standard error, filtered by a process-wide level
// (--log-level), in one of three formats (--log-format):
//   text    "ddbd: <message> key=value ..." (the level before the message for warnings,
//           errors and debug lines), for people;
//   logfmt  "time=<RFC 3339, UTC, ms> level=<level> msg=<message> key=value ...";
//   json    {"time":…,"level":…,"msg":…,"<key>":<value>,…}, one object per line.
// Lines are written whole, so concurrent writers never interleave.
//
// Entry points: SetLevel, Enabled, SetFormat, Error/Warning/Info/Debug (printf-style), Event
// (a message with fields), Every, ProgressCadence.
// Thread-safety: every function may be called from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace ddbd::log {

enum class Level : uint8_t { kError, kWarning, kInfo, kDebug };

// "error", "warning", "info" or "debug"; nullopt for anything else.
std::optional<Level> ParseLevel(std::string_view name);
void SetLevel(Level level);
bool Enabled(Level level);

enum class Format : uint8_t { kText, kLogfmt, kJson };
// "text", "logfmt" or "json"; nullopt for anything else.
std::optional<Format> ParseFormat(std::string_view name);
void SetFormat(Format format);

// One field of an event: a string, or a number written as it is (JSON without quotes).
struct Field {
  Field(std::string_view key, std::string value) : key(key), value(std::move(value)) {}
  Field(std::string_view key, int64_t number)
      : key(key), value(std::to_string(number)), number(true) {}
  Field(std::string_view key, double number, int decimals);
  std::string_view key;
  std::string value;
  bool number = false;
};

// A message with fields, e.g. Event(Level::kInfo, "request", {{"id", id}, {"status", 200}}).
// A field whose value is empty is left out.
void Event(Level level, std::string_view message, std::initializer_list<Field> fields);

void Error(const char* format, ...) __attribute__((format(printf, 1, 2)));
void Warning(const char* format, ...) __attribute__((format(printf, 1, 2)));
void Info(const char* format, ...) __attribute__((format(printf, 1, 2)));
void Debug(const char* format, ...) __attribute__((format(printf, 1, 2)));

// The level of a long task's progress lines: every step's line is a debug line, and one every
// `interval` (the first after `interval` has passed) an info line — so that a long task says
// how far it is at info level without flooding the log. Not thread-safe: one per task.
class ProgressCadence {
 public:
  explicit ProgressCadence(std::chrono::steady_clock::duration interval)
      : interval_(interval), last_(std::chrono::steady_clock::now()) {}
  // The level of the line for the step just done; nullopt when no line is due at the
  // process's level.
  std::optional<Level> Next();

 private:
  std::chrono::steady_clock::duration interval_;
  std::chrono::steady_clock::time_point last_;
};

// At most one line per second from one call site, for conditions that can repeat at request
// rate (a failing disk): `if (every.Due()) log::Error(...)`.
class Every {
 public:
  bool Due();

 private:
  std::atomic<int64_t> last_second_{-1};
};

}  // namespace ddbd::log
