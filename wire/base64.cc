// Base64 codec.
#include "wire/base64.h"

#include <array>
#include <cstdint>

namespace ddbd::wire {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<int8_t, 256> MakeDecodeTable() {
  std::array<int8_t, 256> table{};
  for (auto& v : table) v = -1;
  for (int i = 0; i < 64; ++i) table[static_cast<uint8_t>(kAlphabet[i])] = static_cast<int8_t>(i);
  return table;
}
constexpr auto kDecode = MakeDecodeTable();

}  // namespace

std::string Base64Encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t v = (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8) | uint8_t(bytes[i + 2]);
    out.push_back(kAlphabet[v >> 18]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(kAlphabet[(v >> 6) & 63]);
    out.push_back(kAlphabet[v & 63]);
  }
  if (i + 1 == bytes.size()) {
    uint32_t v = uint8_t(bytes[i]) << 16;
    out.push_back(kAlphabet[v >> 18]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out += "==";
  } else if (i + 2 == bytes.size()) {
    uint32_t v = (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8);
    out.push_back(kAlphabet[v >> 18]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(kAlphabet[(v >> 6) & 63]);
    out.push_back('=');
  }
  return out;
}

Result<std::string> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) {
    return Error::Serialization(
        "Base64 encoded length is expected a multiple of 4 bytes but found: " +
        std::to_string(text.size()));
  }
  size_t padding = 0;
  if (!text.empty() && text.back() == '=') ++padding;
  if (text.size() > 1 && text[text.size() - 2] == '=') ++padding;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  uint32_t accumulator = 0;
  const size_t data_chars = text.size() - padding;
  for (size_t i = 0; i < data_chars; ++i) {
    int8_t v = kDecode[static_cast<uint8_t>(text[i])];
    if (v < 0) return Error::Serialization("only base-64-encoded strings are convertible to bytes");
    accumulator = (accumulator << 6) | static_cast<uint32_t>(v);
    if (i % 4 == 3) {
      out.push_back(static_cast<char>(accumulator >> 16));
      out.push_back(static_cast<char>(accumulator >> 8));
      out.push_back(static_cast<char>(accumulator));
      accumulator = 0;
    }
  }
  // The bits of the last data character that fall past the decoded bytes must be zero.
  if (padding == 1) {
    if (accumulator & 0x3) {
      return Error::Serialization("Invalid last non-pad Base64 character dectected");
    }
    out.push_back(static_cast<char>(accumulator >> 10));
    out.push_back(static_cast<char>(accumulator >> 2));
  } else if (padding == 2) {
    if (accumulator & 0xF) {
      return Error::Serialization("Invalid last non-pad Base64 character dectected");
    }
    out.push_back(static_cast<char>(accumulator >> 4));
  }
  return out;
}

}  // namespace ddbd::wire
