// JsonWriter: appends compact JSON to a string. Commas are placed automatically; the caller
// keeps begin/end calls balanced. Strings are escaped per RFC 8259 (UTF-8 passes through).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ddbd::server::wire {

class JsonWriter {
 public:
  JsonWriter& BeginObject() {
    Separate();
    out_.push_back('{');
    return *this;
  }
  JsonWriter& EndObject() {
    out_.push_back('}');
    return *this;
  }
  JsonWriter& BeginArray() {
    Separate();
    out_.push_back('[');
    return *this;
  }
  JsonWriter& EndArray() {
    out_.push_back(']');
    return *this;
  }
  JsonWriter& Key(std::string_view key) {
    Separate();
    Quoted(key);
    out_.push_back(':');
    return *this;
  }
  JsonWriter& String(std::string_view s) {
    Separate();
    Quoted(s);
    return *this;
  }
  JsonWriter& Int(int64_t v) {
    Separate();
    out_ += std::to_string(v);
    return *this;
  }
  JsonWriter& Bool(bool v) {
    Separate();
    out_ += v ? "true" : "false";
    return *this;
  }
  // A value that is already JSON (e.g. minified from another response), copied as it is.
  JsonWriter& Raw(std::string_view json) {
    Separate();
    out_ += json;
    return *this;
  }
  // A capacity figure as DynamoDB prints it: always with a fraction ("1.0", "0.5").
  JsonWriter& Capacity(double v);
  // The shortest decimal that reads back as `v` (a finite double).
  JsonWriter& Double(double v);
  // An epoch-seconds timestamp with millisecond precision, as the SDKs expect.
  JsonWriter& EpochSeconds(int64_t milliseconds);

  const std::string& str() const { return out_; }
  std::string Take() { return std::move(out_); }

 private:
  void Separate() {
    if (!out_.empty()) {
      char last = out_.back();
      if (last != '{' && last != '[' && last != ':') out_.push_back(',');
    }
  }
  void Quoted(std::string_view s);
  std::string out_;
};

}  // namespace ddbd::server::wire
