// Reading the JSON text the job records are kept as (writing is wire::JsonWriter's): typed
// members with defaults, so that a record written by an older ddbd, without a newer member,
// still reads.
//
// Entry point: RecordJson.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.h"
#include "wire/json_writer.h"

namespace ddbd::portability {

class RecordJson {
 public:
  // Fails with an Internal error naming `what` when `bytes` is not a JSON object.
  static Result<RecordJson> Parse(std::string_view bytes, std::string_view what);

  std::string Text(const char* key) const { return OptionalText(key).value_or(std::string()); }
  std::optional<std::string> OptionalText(const char* key) const;
  int64_t Number(const char* key) const;
  bool Flag(const char* key) const;
  std::vector<std::string> Texts(const char* key) const;

 private:
  RecordJson() : parser_(std::make_unique<simdjson::dom::parser>()) {}

  std::unique_ptr<simdjson::dom::parser> parser_;  // owns what object_ points into
  simdjson::dom::object object_;
};

// Writes `key` and the text when there is one, nothing otherwise.
inline void WriteOptional(wire::JsonWriter& out, std::string_view key,
                          const std::optional<std::string>& value) {
  if (value) out.Key(key).String(*value);
}

}  // namespace ddbd::portability
