// UTF-8 at the level of single characters: how long the one at a position is, and the
// character itself, so that text quoted back to a client (an error naming a character)
// never splits a character into invalid bytes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ddbd {

// The length in bytes (1-4) of the well-formed UTF-8 sequence that starts at text[at], or
// 0 when the bytes there are not one (a stray continuation byte, a truncated sequence, an
// overlong encoding, a surrogate, a code point above U+10FFFF). `at` < text.size().
size_t Utf8SequenceLength(std::string_view text, size_t at);

// Whether all of `text` is well-formed UTF-8.
bool IsUtf8(std::string_view text);

// The character that starts at text[at] as text: its whole sequence, or U+FFFD (the
// replacement character) when the bytes there are not well-formed. `at` < text.size().
std::string_view Utf8CharacterAt(std::string_view text, size_t at);

// Decodes the character at text[at] and advances `at` past it; an ill-formed byte decodes
// to U+FFFD and is skipped alone. `at` < text.size().
char32_t DecodeUtf8At(std::string_view text, size_t& at);

// `text` as it may be quoted in a reply: at most `max_bytes` of it, whole characters only,
// each ill-formed byte replaced by U+FFFD.
std::string QuotableUtf8(std::string_view text, size_t max_bytes);

}  // namespace ddbd
