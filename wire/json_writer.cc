// JsonWriter's escaping and number formats.
#include "wire/json_writer.h"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

// Short strings are read sixteen bytes at a time, past their end but within their page;
// AddressSanitizer would report such reads, so its builds take the general path. (Out of line
// on purpose: inlined where a string literal is written, the compiler would see the read.)
#ifdef __SSE2__
#define DDBD_JSON_SIXTEEN_BYTE_STRINGS
#endif
#ifdef __SANITIZE_ADDRESS__
#undef DDBD_JSON_SIXTEEN_BYTE_STRINGS
#endif
#ifdef DDBD_ADDRESS_SANITIZER
#undef DDBD_JSON_SIXTEEN_BYTE_STRINGS
#endif

namespace ddbd::wire {

namespace {

// Whether any of the eight bytes of `word` is a control character (below 0x20), a quote or a
// backslash: the classic "has a byte less than n" and "has a zero byte" tests, exact as
// predicates (bytes of 0x80 and above never match).
bool MayNeedEscape(uint64_t word) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL, kHighs = 0x8080808080808080ULL;
  auto has_zero = [](uint64_t x) { return (x - kOnes) & ~x & kHighs; };
  return (((word - 0x20 * kOnes) & ~word & kHighs) | has_zero(word ^ ('"' * kOnes)) |
          has_zero(word ^ ('\\' * kOnes))) != 0;
}

// Whether byte c needs an escape: a control character, a quote or a backslash.
constexpr std::array<bool, 256> kNeedsEscape = [] {
  std::array<bool, 256> table{};
  for (int c = 0; c < 0x20; ++c) table[c] = true;
  table['"'] = table['\\'] = true;
  return table;
}();

#ifdef __SSE2__
// The bits of the 16 `bytes` that need an escape: an unsigned byte of at most 0x1F (its
// minimum with 0x1F is itself), a quote or a backslash.
int DirtyBytes(__m128i bytes) {
  const __m128i control = _mm_cmpeq_epi8(_mm_min_epu8(bytes, _mm_set1_epi8(0x1F)), bytes);
  const __m128i quote = _mm_cmpeq_epi8(bytes, _mm_set1_epi8('"'));
  const __m128i backslash = _mm_cmpeq_epi8(bytes, _mm_set1_epi8('\\'));
  return _mm_movemask_epi8(_mm_or_si128(control, _mm_or_si128(quote, backslash)));
}
int DirtyBytes(const char* p) {
  return DirtyBytes(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

// CleanPrefix for strings of 16 bytes or more: 16 bytes a step, the last few in one more step
// overlapping the previous one (its bits for bytes already seen shifted out).
size_t LongCleanPrefix(std::string_view s) {
  const size_t n = s.size();
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    if (const int dirty = DirtyBytes(s.data() + i)) return i + std::countr_zero(unsigned(dirty));
  }
  if (i < n) {
    const int dirty = DirtyBytes(s.data() + n - 16) >> (i - (n - 16));
    if (dirty) return i + std::countr_zero(unsigned(dirty));
  }
  return n;
}

#endif

// The length of the longest prefix of `s` whose bytes need no escape. Eight bytes a step
// (sixteen with SSE2, for strings of sixteen or more); the last few of a string of eight or
// more in one more step (a word overlapping the previous one), so that only strings shorter
// than eight are looked at byte by byte.
size_t CleanPrefix(std::string_view s) {
  const size_t n = s.size();
#ifdef __SSE2__
  if (n >= 16) return LongCleanPrefix(s);
#endif
  size_t i = 0;
  uint64_t word;
  for (; i + 8 <= n; i += 8) {
    std::memcpy(&word, s.data() + i, sizeof word);
    if (MayNeedEscape(word)) break;
  }
  if (i + 8 > n && n >= 8 && i < n) {
    std::memcpy(&word, s.data() + n - 8, sizeof word);
    if (!MayNeedEscape(word)) return n;
  }
  while (i < n && !kNeedsEscape[static_cast<unsigned char>(s[i])]) ++i;
  return i;
}

}  // namespace

// Most names and values are short: one load, one test, one store (the bytes stored past the
// string's end fall in the room beyond used_). Through the general scan and memcpy, strings
// under sixteen bytes were 17 % of a Query's instructions (callgrind); the general path is a
// separate function so that this one needs no registers saved.
void JsonWriter::Quoted(std::string_view s) {
#ifdef DDBD_JSON_SIXTEEN_BYTE_STRINGS
  const auto address = reinterpret_cast<uintptr_t>(s.data());
  if (s.size() < 16 && address != 0 && (address & 4095) <= 4096 - 16) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data()));
    if ((DirtyBytes(bytes) & ((1 << s.size()) - 1)) == 0) {
      char* quoted = Reserve(18);
      quoted[0] = '"';
      _mm_storeu_si128(reinterpret_cast<__m128i*>(quoted + 1), bytes);
      quoted[s.size() + 1] = '"';
      used_ += s.size() + 2;
      return;
    }
  }
#endif
  QuotedAnyLength(s);
}

// Bytes that need no escape are found eight at a time and copied in runs: a string without
// quotes, backslashes or control characters (nearly every one) is one scan and one copy,
// quotes included. Byte by byte, escaping was 18 % of a 1 KB GetItem's instructions, and
// appending a short name or value piece by piece a third of a Query's rendering (callgrind).
void JsonWriter::QuotedAnyLength(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  size_t clean = CleanPrefix(s);
  if (clean == s.size()) {
    char* quoted = Reserve(s.size() + 2);
    quoted[0] = '"';
    if (!s.empty()) std::memcpy(quoted + 1, s.data(), s.size());  // an empty view may be null
    quoted[s.size() + 1] = '"';
    used_ += s.size() + 2;
    return;
  }
  Put('"');
  size_t run = 0;
  for (size_t i = clean; i < s.size(); i = run + CleanPrefix(s.substr(run))) {
    const auto c = static_cast<unsigned char>(s[i]);
    Append(s.substr(run, i - run));
    run = i + 1;
    switch (c) {
      case '"':
        Append("\\\"");
        break;
      case '\\':
        Append("\\\\");
        break;
      case '\n':
        Append("\\n");
        break;
      case '\r':
        Append("\\r");
        break;
      case '\t':
        Append("\\t");
        break;
      case '\b':
        Append("\\b");
        break;
      case '\f':
        Append("\\f");
        break;
      default:
        Append("\\u00");
        Put(kHex[(c >> 4) & 0xF]);
        Put(kHex[c & 0xF]);
    }
  }
  Append(s.substr(run));
  Put('"');
}

// The new room is not zeroed (std::string::resize zeroed it: 2 % of a Query's instructions).
void JsonWriter::Grow(size_t n) {
  const size_t capacity = std::max({capacity_ * 2, used_ + n, size_t{256}});
  auto grown = std::make_unique_for_overwrite<char[]>(capacity);
  if (used_ > 0) std::memcpy(grown.get(), buffer_.get(), used_);
  buffer_ = std::move(grown);
  capacity_ = capacity;
}

JsonWriter& JsonWriter::Int(int64_t v) {
  Separate();
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  Append(std::string_view(buf, static_cast<size_t>(end - buf)));
  return *this;
}

JsonWriter& JsonWriter::Capacity(double v) {
  Separate();
  char buf[64];
  int n = std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string_view text(buf, static_cast<size_t>(n));
  Append(text);
  if (text.find_first_of(".e") == std::string_view::npos) Append(".0");
  return *this;
}

JsonWriter& JsonWriter::Double(double v) {
  Separate();
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  Append(std::string_view(buf, static_cast<size_t>((ec == std::errc() ? end : buf) - buf)));
  return *this;
}

JsonWriter& JsonWriter::EpochSeconds(int64_t milliseconds) {
  Separate();
  char buf[64];
  int n = std::snprintf(buf, sizeof buf, "%lld.%03lld", static_cast<long long>(milliseconds / 1000),
                        static_cast<long long>(milliseconds % 1000));
  Append(std::string_view(buf, static_cast<size_t>(n)));
  return *this;
}

}  // namespace ddbd::wire
