// AttributeValue equality and DynamoDB's item-size measure.
#include "model/attribute_value.h"

#include <gtest/gtest.h>

namespace ddbd {
namespace {

TEST(AttributeValueTest, SetsCompareRegardlessOfOrder) {
  EXPECT_EQ(AttributeValue::Set(AttributeType::kSS, {"a", "b"}),
            AttributeValue::Set(AttributeType::kSS, {"b", "a"}));
  EXPECT_FALSE(AttributeValue::Set(AttributeType::kSS, {"a"}) ==
               AttributeValue::Set(AttributeType::kNS, {"a"}));
  EXPECT_FALSE(AttributeValue::String("1") == AttributeValue::NumberText("1"));
}

TEST(ItemSizeTest, CountsNamesAndValuesAsDynamoDBDoes) {
  Item item;
  item["PK"] = AttributeValue::String("USER#123");          // 2 + 8
  item["n"] = AttributeValue::NumberText("123456");         // 1 + 4
  item["b"] = AttributeValue::Binary(std::string(5, 'x'));  // 1 + 5
  item["t"] = AttributeValue::Bool(true);                   // 1 + 1
  item["z"] = AttributeValue::Null();                       // 1 + 1
  EXPECT_EQ(ItemSize(item), 10u + 5u + 6u + 2u + 2u);
}

TEST(ItemSizeTest, ListsAndMapsCarryOverhead) {
  // L: 3 + Σ(1 + element); M: 3 + Σ(1 + key + value).
  AttributeValue list =
      AttributeValue::List({AttributeValue::String("ab"), AttributeValue::NumberText("1")});
  EXPECT_EQ(ValueSize(list), 3u + (1 + 2) + (1 + 2));
  AttributeMap members;
  members["k"] = AttributeValue::String("vv");
  EXPECT_EQ(ValueSize(AttributeValue::Map(members)), 3u + (1 + 1 + 2));
  EXPECT_EQ(ValueSize(AttributeValue::Map({})), 3u);
  EXPECT_EQ(ValueSize(AttributeValue::Set(AttributeType::kSS, {"abc", "de"})), 5u);
  EXPECT_EQ(ValueSize(AttributeValue::Set(AttributeType::kNS, {"1", "123"})), 2u + 3u);
}

}  // namespace
}  // namespace ddbd
