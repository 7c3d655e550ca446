// JsonWriter's string escaping: exactly the characters RFC 8259 requires (quote, backslash,
// control characters) are escaped, with the short forms where JSON has them; every other byte,
// UTF-8 sequences included, is copied as is, in runs.
#include "wire/json_writer.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

namespace ddbd::wire {
namespace {

std::string Rendered(std::string_view s) {
  JsonWriter out;
  out.String(s);
  return out.Take();
}

TEST(JsonWriterTest, StringsEscapeExactlyWhatJsonRequires) {
  EXPECT_EQ(Rendered(""), R"("")");
  EXPECT_EQ(Rendered(std::string_view()), R"("")");  // no bytes at all, not even a pointer
  EXPECT_EQ(Rendered("plain text, no escapes"), R"("plain text, no escapes")");
  EXPECT_EQ(Rendered("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(Rendered("\n\r\t\b\f"), R"("\n\r\t\b\f")");
  EXPECT_EQ(Rendered(std::string("\x00\x01\x1f", 3)), R"("\u0000\u0001\u001f")");
  EXPECT_EQ(Rendered("\x7f/é€"), "\"\x7f/é€\"");
  // Escapes at both ends and between long runs.
  const std::string run(1000, 'x');
  EXPECT_EQ(Rendered("\"" + run + "\n" + run + "\\"), "\"\\\"" + run + "\\n" + run + "\\\\\"");
}

// What JSON requires of one byte, by the RFC's table.
std::string Escaped(unsigned char c) {
  switch (c) {
    case '"':
      return "\\\"";
    case '\\':
      return "\\\\";
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    case '\t':
      return "\\t";
    case '\b':
      return "\\b";
    case '\f':
      return "\\f";
  }
  if (c >= 0x20) return std::string(1, static_cast<char>(c));
  static constexpr char kHex[] = "0123456789abcdef";
  return std::string("\\u00") + kHex[c >> 4] + kHex[c & 0xF];
}

TEST(JsonWriterTest, EveryByteIsEscapedRightAtEveryPlaceOfAWord) {
  // The scan looks at eight or sixteen bytes at a time: each of the 256 byte values, at each
  // offset of a step and in the overlapping tail, among plain bytes and bytes of 0x80 and
  // above.
  for (int value = 0; value < 256; ++value) {
    for (size_t length : {1, 7, 8, 9, 15, 16, 17, 23, 31, 32, 33, 47, 64}) {
      for (size_t at = 0; at < length; ++at) {
        std::string input(length, (at % 2) ? 'a' : '\xc3');
        input[at] = static_cast<char>(value);
        std::string expected = "\"";
        for (char c : input) expected += Escaped(static_cast<unsigned char>(c));
        expected += "\"";
        ASSERT_EQ(Rendered(input), expected)
            << "byte " << value << " at " << at << " of " << length;
      }
    }
  }
}

// Short strings are tested and copied sixteen bytes at a time, reading past their end: what
// lies beyond a string is never part of it, however much it would need escaping.
TEST(JsonWriterTest, BytesBeyondAShortStringDoNotCount) {
  const std::string buffer = std::string(40, 'k') + std::string(32, '"') + std::string(32, '\n');
  for (size_t length = 0; length < 17; ++length) {
    const std::string_view before_quotes(buffer.data() + 40 - length, length);
    const std::string_view before_controls(buffer.data() + 72 - length, length);
    EXPECT_EQ(Rendered(before_quotes), "\"" + std::string(length, 'k') + "\"") << length;
    std::string escaped_quotes;  // the quotes before the newlines are the string's own
    for (size_t i = 0; i < length; ++i) escaped_quotes += "\\\"";
    EXPECT_EQ(Rendered(before_controls), "\"" + escaped_quotes + "\"") << length;
  }
}

// Reading past a string's end must never touch the next page: a string that ends where an
// unreadable page begins is rendered without a fault, at every length.
TEST(JsonWriterTest, ShortStringsAtAPageEndAreReadWithinTheirPage) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  void* pages = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(pages, MAP_FAILED);
  ASSERT_EQ(mprotect(static_cast<char*>(pages) + page, page, PROT_NONE), 0);
  char* end = static_cast<char*>(pages) + page;
  std::memset(end - 32, 'z', 32);
  for (size_t length = 1; length < 32; ++length) {
    EXPECT_EQ(Rendered(std::string_view(end - length, length)),
              "\"" + std::string(length, 'z') + "\"");
  }
  end[-1] = '\t';
  EXPECT_EQ(Rendered(std::string_view(end - 3, 3)), R"("zz\t")");
  munmap(pages, 2 * page);
}

// The writer grows its string ahead of what it writes: what it hands over is exactly the
// JSON written, however many times it grew, and str() shows the same while writing.
TEST(JsonWriterTest, OutputIsExactlyWhatWasWrittenAcrossGrowth) {
  JsonWriter out;
  std::string expected = "[";
  out.BeginArray();
  for (int i = 0; i < 5000; ++i) {
    out.BeginObject().Key("n").Int(i - 2500).Key("s").String(std::string(i % 37, 'q')).EndObject();
    if (i > 0) expected += ",";
    expected +=
        "{\"n\":" + std::to_string(i - 2500) + ",\"s\":\"" + std::string(i % 37, 'q') + "\"}";
  }
  out.EndArray();
  expected += "]";
  EXPECT_EQ(out.str(), expected);
  EXPECT_EQ(out.Take(), expected);
  EXPECT_EQ(out.str(), "");  // taken: the writer starts again empty
  out.Bool(true);
  EXPECT_EQ(out.Take(), "true");
}

}  // namespace
}  // namespace ddbd::wire
