// Log lines on standard error.
#include "model/log.h"

#include <unistd.h>

#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <string>

namespace ddbd::log {
namespace {

std::atomic<Level> current_level{Level::kInfo};

void Write(Level level, const char* format, va_list args) {
  if (!Enabled(level)) return;
  static constexpr std::string_view kPrefixes[] = {
      "ddbd: error: ", "ddbd: warning: ", "ddbd: ", "ddbd: debug: "};
  std::string line(kPrefixes[static_cast<size_t>(level)]);
  va_list measure;
  va_copy(measure, args);
  const int length = std::vsnprintf(nullptr, 0, format, measure);
  va_end(measure);
  if (length < 0) return;
  const size_t prefix = line.size();
  line.resize(prefix + static_cast<size_t>(length) + 1);
  std::vsnprintf(line.data() + prefix, static_cast<size_t>(length) + 1, format, args);
  line.back() = '\n';
  // One write(2) per line: lines of concurrent threads never interleave.
  for (size_t written = 0; written < line.size();) {
    const ssize_t n = ::write(STDERR_FILENO, line.data() + written, line.size() - written);
    if (n <= 0) return;
    written += static_cast<size_t>(n);
  }
}

}  // namespace

std::optional<Level> ParseLevel(std::string_view name) {
  if (name == "error") return Level::kError;
  if (name == "warning") return Level::kWarning;
  if (name == "info") return Level::kInfo;
  if (name == "debug") return Level::kDebug;
  return std::nullopt;
}

void SetLevel(Level level) { current_level.store(level, std::memory_order_relaxed); }

bool Enabled(Level level) { return level <= current_level.load(std::memory_order_relaxed); }

#define DDBD_LOG_FUNCTION(Name, level) \
  void Name(const char* format, ...) { \
    va_list args;                      \
    va_start(args, format);            \
    Write(level, format, args);        \
    va_end(args);                      \
  }
DDBD_LOG_FUNCTION(Error, Level::kError)
DDBD_LOG_FUNCTION(Warning, Level::kWarning)
DDBD_LOG_FUNCTION(Info, Level::kInfo)
DDBD_LOG_FUNCTION(Debug, Level::kDebug)
#undef DDBD_LOG_FUNCTION

bool Every::Due() {
  const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                          std::chrono::steady_clock::now().time_since_epoch())
                          .count();
  int64_t last = last_second_.load();
  return now != last && last_second_.compare_exchange_strong(last, now);
}

}  // namespace ddbd::log
