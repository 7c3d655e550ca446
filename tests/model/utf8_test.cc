// UTF-8 sequence lengths and decoding, at the edges of each byte range.
#include "model/utf8.h"

#include <gtest/gtest.h>

#include <string>

namespace ddbd {
namespace {

TEST(Utf8Test, WellFormedSequencesHaveTheirLength) {
  EXPECT_EQ(Utf8SequenceLength("a", 0), 1u);
  EXPECT_EQ(Utf8SequenceLength(std::string_view("\0", 1), 0), 1u);
  EXPECT_EQ(Utf8SequenceLength("\u00e9", 0), 2u);      // é
  EXPECT_EQ(Utf8SequenceLength("\u0800", 0), 3u);      // lowest three-byte
  EXPECT_EQ(Utf8SequenceLength("\uffff", 0), 3u);      // highest three-byte
  EXPECT_EQ(Utf8SequenceLength("\U0001F600", 0), 4u);  // 😀
  EXPECT_EQ(Utf8SequenceLength("\U0010FFFF", 0), 4u);  // highest code point
  EXPECT_EQ(Utf8SequenceLength("x\u00e9", 1), 2u);
}

TEST(Utf8Test, IllFormedSequencesHaveLengthZero) {
  EXPECT_EQ(Utf8SequenceLength("\x80", 0), 0u);              // stray continuation byte
  EXPECT_EQ(Utf8SequenceLength("\xd9", 0), 0u);              // truncated
  EXPECT_EQ(Utf8SequenceLength("\xe2\x82", 0), 0u);          // truncated
  EXPECT_EQ(Utf8SequenceLength("\xc0\xaf", 0), 0u);          // overlong '/'
  EXPECT_EQ(Utf8SequenceLength("\xe0\x80\xaf", 0), 0u);      // overlong '/'
  EXPECT_EQ(Utf8SequenceLength("\xf0\x80\x80\xaf", 0), 0u);  // overlong '/'
  EXPECT_EQ(Utf8SequenceLength("\xed\xa0\x80", 0), 0u);      // surrogate U+D800
  EXPECT_EQ(Utf8SequenceLength("\xf4\x90\x80\x80", 0), 0u);  // U+110000
  EXPECT_EQ(Utf8SequenceLength("\xf5\x80\x80\x80", 0), 0u);
  EXPECT_EQ(Utf8SequenceLength("\xe2\x28\xa1", 0), 0u);  // second byte not a continuation
  EXPECT_EQ(Utf8SequenceLength("\xe2\x82\x28", 0), 0u);  // third byte not a continuation
}

TEST(Utf8Test, CharacterAtIsTheWholeSequenceOrTheReplacementCharacter) {
  EXPECT_EQ(Utf8CharacterAt("a\U0001F600b", 1), "\U0001F600");
  EXPECT_EQ(Utf8CharacterAt("\xd9", 0), "\ufffd");
  EXPECT_EQ(Utf8CharacterAt("\x80z", 0), "\ufffd");
}

TEST(Utf8Test, DecodeAdvancesPastEachCharacter) {
  const std::string_view text = "a\u00e9\u20ac\U0001F600\x80z";
  size_t at = 0;
  std::u32string decoded;
  while (at < text.size()) decoded.push_back(DecodeUtf8At(text, at));
  EXPECT_EQ(decoded, U"a\u00e9\u20ac\U0001F600\uFFFDz");
  EXPECT_EQ(at, text.size());
}

TEST(Utf8Test, QuotableTextKeepsWholeCharactersAndReplacesIllFormedBytes) {
  EXPECT_EQ(QuotableUtf8("plain", 64), "plain");
  EXPECT_EQ(QuotableUtf8("na\xfe\xfemes", 64), "na\xef\xbf\xbd\xef\xbf\xbdmes");
  EXPECT_EQ(QuotableUtf8("\xc3\xa9t\xc3\xa9", 64), "\xc3\xa9t\xc3\xa9");
  EXPECT_EQ(QuotableUtf8("ab\xc3\xa9", 3), "ab");  // never half a character
  EXPECT_EQ(QuotableUtf8(std::string_view("a\0b", 3), 64), std::string("a\0b", 3));
  EXPECT_EQ(QuotableUtf8("", 64), "");
}

}  // namespace
}  // namespace ddbd
