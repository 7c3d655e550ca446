// Item codec: every type round-trips; corrupt records are rejected, never crash.
#include "storage/internal/item_codec.h"

#include <gtest/gtest.h>

#include "tests/testing/assertions.h"

namespace ddbd::storage {
namespace {

Item EveryType() {
  Item item;
  item["s"] = AttributeValue::String("héllo\0x");
  item["n"] = AttributeValue::NumberText("-12.5");
  item["b"] = AttributeValue::Binary(std::string("\0\xFF\x01", 3));
  item["t"] = AttributeValue::Bool(true);
  item["f"] = AttributeValue::Bool(false);
  item["z"] = AttributeValue::Null();
  AttributeMap nested;
  nested["inner"] =
      AttributeValue::List({AttributeValue::NumberText("1"), AttributeValue::Map({})});
  item["m"] = AttributeValue::Map(nested);
  item["l"] = AttributeValue::List({AttributeValue::String(""), AttributeValue::Null()});
  item["ss"] = AttributeValue::Set(AttributeType::kSS, {"a", "b"});
  item["ns"] = AttributeValue::Set(AttributeType::kNS, {"1", "2.5"});
  item["bs"] = AttributeValue::Set(AttributeType::kBS, {std::string("\0", 1), "x"});
  return item;
}

TEST(ItemCodecTest, RoundTripsEveryType) {
  Item item = EveryType();
  ASSERT_OK_AND_ASSIGN(Item decoded, DecodeItem(EncodeItem(item)));
  EXPECT_EQ(decoded, item);
}

TEST(ItemCodecTest, EmptyItem) {
  ASSERT_OK_AND_ASSIGN(Item decoded, DecodeItem(EncodeItem(Item())));
  EXPECT_TRUE(decoded.empty());
}

TEST(ItemCodecTest, RejectsEveryTruncation) {
  std::string bytes = EncodeItem(EveryType());
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(DecodeItem(std::string_view(bytes).substr(0, n)).ok()) << n;
  }
  EXPECT_FALSE(DecodeItem(bytes + "x").ok());
}

TEST(ItemCodecTest, RejectsUnknownTypeTag) {
  Item item;
  item["b"] = AttributeValue::Bool(true);
  std::string bytes = EncodeItem(item);
  // size header, attribute count, name length, name, type tag, payload.
  ASSERT_EQ(bytes.size(), 6u);
  bytes[4] = '\x63';
  EXPECT_FALSE(DecodeItem(bytes).ok());
}

TEST(ItemCodecTest, StoresTheItemSize) {
  Item item = EveryType();
  ASSERT_OK_AND_ASSIGN(size_t size, StoredItemSize(EncodeItem(item)));
  EXPECT_EQ(size, ItemSize(item));
}

}  // namespace
}  // namespace ddbd::storage
