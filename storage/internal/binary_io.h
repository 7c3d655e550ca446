// Byte-level writer and reader for ddbd's on-disk encodings (item codec, catalog records):
// LEB128 varints, length-prefixed strings, fixed big-endian integers for keys.
// Entry points: ByteWriter, ByteReader (bounds-checked; a truncated record reads as failure).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ddbd::storage {

class ByteWriter {
 public:
  explicit ByteWriter(std::string& out) : out_(out) {}
  void Byte(uint8_t b) { out_.push_back(static_cast<char>(b)); }
  void Varint(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<char>(v));
  }
  void SignedVarint(int64_t v) {  // zig-zag
    Varint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
  }
  void Bytes(std::string_view s) {
    Varint(s.size());
    out_.append(s);
  }
  void FixedBigEndian64(uint64_t v) {
    for (int shift = 56; shift >= 0; shift -= 8) out_.push_back(static_cast<char>(v >> shift));
  }

 private:
  std::string& out_;
};

class ByteReader {
 public:
  explicit ByteReader(std::string_view in) : in_(in) {}
  bool ok() const { return ok_; }
  bool done() const { return pos_ == in_.size(); }
  size_t remaining() const { return in_.size() - pos_; }

  uint8_t Byte() {
    if (pos_ >= in_.size()) return Fail(), 0;
    return static_cast<uint8_t>(in_[pos_++]);
  }
  uint64_t Varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= in_.size()) return Fail(), 0;
      uint8_t b = static_cast<uint8_t>(in_[pos_++]);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    return Fail(), 0;
  }
  int64_t SignedVarint() {
    uint64_t v = Varint();
    return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
  }
  std::string_view Bytes() {
    uint64_t n = Varint();
    if (!ok_ || n > in_.size() - pos_) return Fail(), std::string_view();
    std::string_view s = in_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  uint64_t FixedBigEndian64() {
    if (in_.size() - pos_ < 8) return Fail(), 0;
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<uint8_t>(in_[pos_++]);
    return v;
  }
  // Skips `n` bytes.
  void Skip(uint64_t n) {
    if (n > in_.size() - pos_) return Fail();
    pos_ += n;
  }

 private:
  void Fail() {
    ok_ = false;
    pos_ = in_.size();
  }
  std::string_view in_;
  size_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace ddbd::storage
