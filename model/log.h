// The process's log: one line per event on standard error, "ddbd: <text>" (with the level
// before the text for warnings, errors and debug lines), filtered by a process-wide level
// (--log-level). Lines are written whole, so concurrent writers never interleave.
//
// Entry points: SetLevel, Enabled, Error/Warning/Info/Debug (printf-style), Every.
// Thread-safety: every function may be called from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ddbd::log {

enum class Level : uint8_t { kError, kWarning, kInfo, kDebug };

// "error", "warning", "info" or "debug"; nullopt for anything else.
std::optional<Level> ParseLevel(std::string_view name);
void SetLevel(Level level);
bool Enabled(Level level);

void Error(const char* format, ...) __attribute__((format(printf, 1, 2)));
void Warning(const char* format, ...) __attribute__((format(printf, 1, 2)));
void Info(const char* format, ...) __attribute__((format(printf, 1, 2)));
void Debug(const char* format, ...) __attribute__((format(printf, 1, 2)));

// At most one line per second from one call site, for conditions that can repeat at request
// rate (a failing disk): `if (every.Due()) log::Error(...)`.
class Every {
 public:
  bool Due();

 private:
  std::atomic<int64_t> last_second_{-1};
};

}  // namespace ddbd::log
