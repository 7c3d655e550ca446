// Job records' JSON, read.
#include "portability/record_json.h"

namespace ddbd::portability {

Result<RecordJson> RecordJson::Parse(std::string_view bytes, std::string_view what) {
  RecordJson record;
  if (record.parser_->parse(bytes.data(), bytes.size()).get(record.object_) != simdjson::SUCCESS) {
    return Error::Internal("corrupt " + std::string(what) + " record");
  }
  return record;
}

std::optional<std::string> RecordJson::OptionalText(const char* key) const {
  std::string_view value;
  if (object_[key].get(value) != simdjson::SUCCESS) return std::nullopt;
  return std::string(value);
}

int64_t RecordJson::Number(const char* key) const {
  int64_t value = 0;
  return object_[key].get(value) == simdjson::SUCCESS ? value : 0;
}

bool RecordJson::Flag(const char* key) const {
  bool value = false;
  return object_[key].get(value) == simdjson::SUCCESS && value;
}

std::vector<std::string> RecordJson::Texts(const char* key) const {
  std::vector<std::string> texts;
  simdjson::dom::array array;
  if (object_[key].get(array) != simdjson::SUCCESS) return texts;
  for (auto element : array) {
    std::string_view text;
    if (element.get(text) == simdjson::SUCCESS) texts.emplace_back(text);
  }
  return texts;
}

}  // namespace ddbd::portability
