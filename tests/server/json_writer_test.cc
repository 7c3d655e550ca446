// JsonWriter's string escaping: exactly the characters RFC 8259 requires (quote, backslash,
// control characters) are escaped, with the short forms where JSON has them; every other byte,
// UTF-8 sequences included, is copied as is, in runs.
#include "server/wire/json_writer.h"

#include <gtest/gtest.h>

namespace ddbd::server::wire {
namespace {

std::string Rendered(std::string_view s) {
  JsonWriter out;
  out.String(s);
  return out.Take();
}

TEST(JsonWriterTest, StringsEscapeExactlyWhatJsonRequires) {
  EXPECT_EQ(Rendered(""), R"("")");
  EXPECT_EQ(Rendered("plain text, no escapes"), R"("plain text, no escapes")");
  EXPECT_EQ(Rendered("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(Rendered("\n\r\t\b\f"), R"("\n\r\t\b\f")");
  EXPECT_EQ(Rendered(std::string("\x00\x01\x1f", 3)), R"("\u0000\u0001\u001f")");
  EXPECT_EQ(Rendered("\x7f/é€"), "\"\x7f/é€\"");
  // Escapes at both ends and between long runs.
  const std::string run(1000, 'x');
  EXPECT_EQ(Rendered("\"" + run + "\n" + run + "\\"), "\"\\\"" + run + "\\n" + run + "\\\\\"");
}

}  // namespace
}  // namespace ddbd::server::wire
