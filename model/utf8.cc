// UTF-8 sequence lengths, following the table of well-formed byte sequences in the
// Unicode Standard (chapter 3, table 3-7).
#include "model/utf8.h"

#include <algorithm>

namespace ddbd {
namespace {

constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";

unsigned char ByteAt(std::string_view text, size_t at) {
  return static_cast<unsigned char>(text[at]);
}

}  // namespace

size_t Utf8SequenceLength(std::string_view text, size_t at) {
  const unsigned char lead = ByteAt(text, at);
  if (lead < 0x80) return 1;
  size_t length = 0;
  // The range the second byte must fall in; the later ones are always 0x80..0xBF.
  unsigned char second_min = 0x80;
  unsigned char second_max = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) second_min = 0xA0;  // no overlong forms
    if (lead == 0xED) second_max = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) second_min = 0x90;  // no overlong forms
    if (lead == 0xF4) second_max = 0x8F;  // nothing above U+10FFFF
  } else {
    return 0;
  }
  if (text.size() - at < length) return 0;
  const unsigned char second = ByteAt(text, at + 1);
  if (second < second_min || second > second_max) return 0;
  for (size_t i = 2; i < length; ++i) {
    if ((ByteAt(text, at + i) & 0xC0) != 0x80) return 0;
  }
  return length;
}

bool IsUtf8(std::string_view text) {
  for (size_t at = 0; at < text.size();) {
    const size_t length = Utf8SequenceLength(text, at);
    if (length == 0) return false;
    at += length;
  }
  return true;
}

std::string_view Utf8CharacterAt(std::string_view text, size_t at) {
  const size_t length = Utf8SequenceLength(text, at);
  return length == 0 ? kReplacementCharacter : text.substr(at, length);
}

char32_t DecodeUtf8At(std::string_view text, size_t& at) {
  const size_t length = Utf8SequenceLength(text, at);
  if (length == 0) {
    ++at;
    return U'\uFFFD';
  }
  const unsigned char lead = ByteAt(text, at);
  char32_t point = length == 1 ? lead : lead & (0x7F >> length);
  for (size_t i = 1; i < length; ++i) point = (point << 6) | (ByteAt(text, at + i) & 0x3F);
  at += length;
  return point;
}

std::string QuotableUtf8(std::string_view text, size_t max_bytes) {
  std::string quoted;
  for (size_t at = 0; at < text.size();) {
    const std::string_view character = Utf8CharacterAt(text, at);
    const size_t length = std::max<size_t>(Utf8SequenceLength(text, at), 1);
    if (quoted.size() + character.size() > max_bytes) break;
    quoted.append(character);
    at += length;
  }
  return quoted;
}

}  // namespace ddbd
