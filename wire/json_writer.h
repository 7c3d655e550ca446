// JsonWriter: appends compact JSON to a string. Commas are placed automatically; the caller
// keeps begin/end calls balanced. Strings are escaped per RFC 8259 (UTF-8 passes through).
//
// The string grows ahead of what is written (doubling) and `used_` marks the end of the
// JSON: appending a byte is a store, not std::string's checked push_back, which made a
// Query's page of twenty small items cost more to render than to read (callgrind).
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

namespace ddbd::wire {

class JsonWriter {
 public:
  JsonWriter& BeginObject() {
    Separate();
    Put('{');
    return *this;
  }
  JsonWriter& EndObject() {
    Put('}');
    return *this;
  }
  JsonWriter& BeginArray() {
    Separate();
    Put('[');
    return *this;
  }
  JsonWriter& EndArray() {
    Put(']');
    return *this;
  }
  JsonWriter& Key(std::string_view key) {
    Separate();
    Quoted(key);
    Put(':');
    return *this;
  }
  JsonWriter& String(std::string_view s) {
    Separate();
    Quoted(s);
    return *this;
  }
  JsonWriter& Int(int64_t v);
  JsonWriter& Bool(bool v) {
    Separate();
    Append(v ? "true" : "false");
    return *this;
  }
  // A value that is already JSON (e.g. minified from another response), copied as it is.
  JsonWriter& Raw(std::string_view json) {
    Separate();
    Append(json);
    return *this;
  }
  // Up to eight bytes of JSON copied as one word: `padded` holds them first, then anything.
  JsonWriter& RawWord(const char (&padded)[8], size_t length) {
    Separate();
    std::memcpy(Reserve(8), padded, 8);
    used_ += length;
    return *this;
  }
  // A capacity figure as DynamoDB prints it: always with a fraction ("1.0", "0.5").
  JsonWriter& Capacity(double v);
  // The shortest decimal that reads back as `v` (a finite double).
  JsonWriter& Double(double v);
  // An epoch-seconds timestamp with millisecond precision, as the SDKs expect.
  JsonWriter& EpochSeconds(int64_t milliseconds);

  std::string_view str() const { return std::string_view(buffer_.get(), used_); }
  // The JSON written, as a string; the writer starts again empty (keeping its room).
  std::string Take() {
    std::string json(str());
    used_ = 0;
    return json;
  }

 private:
  void Separate() {
    if (used_ > 0) {
      const char last = buffer_[used_ - 1];
      if (last != '{' && last != '[' && last != ':') Put(',');
    }
  }
  // Room for `n` more bytes at buffer_.get() + used_.
  char* Reserve(size_t n) {
    if (capacity_ - used_ < n) Grow(n);
    return buffer_.get() + used_;
  }
  void Grow(size_t n);
  void Put(char c) {
    *Reserve(1) = c;
    ++used_;
  }
  void Append(std::string_view s) {
    if (s.empty()) return;  // its data() may be null, which memcpy must not see
    std::memcpy(Reserve(s.size()), s.data(), s.size());
    used_ += s.size();
  }
  void Quoted(std::string_view s);
  [[gnu::noinline]] void QuotedAnyLength(std::string_view s);

  // buffer_[0, used_) is the JSON; up to capacity_ is room to grow into, not initialised.
  std::unique_ptr<char[]> buffer_;
  size_t capacity_ = 0;
  size_t used_ = 0;
};

}  // namespace ddbd::wire
