// Log lines on standard error.
#include "model/log.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <ctime>
#include <string>

namespace ddbd::log {
namespace {

std::atomic<Level> current_level{Level::kInfo};
std::atomic<Format> current_format{Format::kText};

constexpr std::string_view kLevelNames[] = {"error", "warning", "info", "debug"};

// A logfmt value: bare when it has no space, quote, equals sign or control character.
void AppendLogfmtValue(std::string& line, std::string_view value) {
  const bool bare = !value.empty() && value.find_first_of(" \"=\\") == std::string_view::npos &&
                    std::none_of(value.begin(), value.end(),
                                 [](char c) { return static_cast<unsigned char>(c) < 0x20; });
  if (bare) {
    line += value;
    return;
  }
  line += '"';
  for (char c : value) {
    if (c == '"' || c == '\\') line += '\\';
    if (c == '\n') {
      line += "\\n";
      continue;
    }
    line += c;
  }
  line += '"';
}

// " key=value" for each field with a value (text and logfmt lines).
void AppendLogfmtFields(std::string& line, std::initializer_list<Field> fields) {
  for (const Field& field : fields) {
    if (field.value.empty()) continue;
    line.append(" ").append(field.key).append("=");
    AppendLogfmtValue(line, field.value);
  }
}

// A JSON string, escaped per RFC 8259.
void AppendJsonString(std::string& line, std::string_view value) {
  static constexpr char kHex[] = "0123456789abcdef";
  line += '"';
  for (char c : value) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      line += '\\';
      line += c;
    } else if (byte < 0x20) {
      line += "\\u00";
      line += kHex[byte >> 4];
      line += kHex[byte & 0xF];
    } else {
      line += c;
    }
  }
  line += '"';
}

// Now, as RFC 3339 in UTC with milliseconds: 2026-12-06T13:20:00.123Z.
std::string Timestamp() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  const size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  std::snprintf(text + n, sizeof text - n, ".%03dZ", static_cast<int>(millis));
  return text;
}

std::string Line(Level level, std::string_view message, std::initializer_list<Field> fields) {
  std::string line;
  const std::string_view level_name = kLevelNames[static_cast<size_t>(level)];
  switch (current_format.load(std::memory_order_relaxed)) {
    case Format::kText:
      line = "ddbd: ";
      if (level != Level::kInfo) line.append(level_name).append(": ");
      line += message;
      AppendLogfmtFields(line, fields);
      break;
    case Format::kLogfmt:
      line.append("time=").append(Timestamp()).append(" level=").append(level_name);
      line += " msg=";
      AppendLogfmtValue(line, message);
      AppendLogfmtFields(line, fields);
      break;
    case Format::kJson:
      line.append(R"({"time":")").append(Timestamp()).append(R"(","level":")");
      line.append(level_name).append(R"(","msg":)");
      AppendJsonString(line, message);
      for (const Field& field : fields) {
        if (field.value.empty()) continue;
        line += ',';
        AppendJsonString(line, field.key);
        line += ':';
        if (field.number) {
          line += field.value;
        } else {
          AppendJsonString(line, field.value);
        }
      }
      line += '}';
      break;
  }
  line += '\n';
  return line;
}

// One write(2) per line: lines of concurrent threads never interleave.
void WriteLine(const std::string& line) {
  for (size_t written = 0; written < line.size();) {
    const ssize_t n = ::write(STDERR_FILENO, line.data() + written, line.size() - written);
    if (n <= 0) return;
    written += static_cast<size_t>(n);
  }
}

void Write(Level level, const char* format, va_list args) {
  if (!Enabled(level)) return;
  va_list measure;
  va_copy(measure, args);
  const int length = std::vsnprintf(nullptr, 0, format, measure);
  va_end(measure);
  if (length < 0) return;
  std::string message(static_cast<size_t>(length) + 1, '\0');
  std::vsnprintf(message.data(), message.size(), format, args);
  message.pop_back();
  WriteLine(Line(level, message, {}));
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

std::optional<Format> ParseFormat(std::string_view name) {
  if (name == "text") return Format::kText;
  if (name == "logfmt") return Format::kLogfmt;
  if (name == "json") return Format::kJson;
  return std::nullopt;
}

void SetFormat(Format format) { current_format.store(format, std::memory_order_relaxed); }

Field::Field(std::string_view key, double number, int decimals) : key(key), number(true) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, number);
  value = text;
}

void Event(Level level, std::string_view message, std::initializer_list<Field> fields) {
  if (Enabled(level)) WriteLine(Line(level, message, fields));
}

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

std::optional<Level> ProgressCadence::Next() {
  const auto now = std::chrono::steady_clock::now();
  if (now - last_ >= interval_) {
    last_ = now;
    return Level::kInfo;
  }
  if (Enabled(Level::kDebug)) return Level::kDebug;
  return std::nullopt;
}

}  // namespace ddbd::log
