// Items returned whole are rendered straight from their stored encoding
// (storage::VisitStoredItem into wire::JsonAttributeSink): the JSON must be byte for byte what
// rendering the decoded Item gives, for every attribute type and nesting.
#include <gtest/gtest.h>

#include "storage/database.h"
#include "storage/internal/item_codec.h"
#include "storage/stored_item.h"
#include "wire/attribute_value_json.h"

namespace ddbd::wire {
namespace {

std::string FromItem(const Item& item) {
  JsonWriter out;
  WriteAttributeMap(out, item);
  return out.Take();
}

std::string FromStored(const std::string& encoding) {
  JsonWriter out;
  JsonAttributeSink sink(out);
  out.BeginObject();
  EXPECT_TRUE(storage::VisitStoredItem(encoding, sink).ok());
  out.EndObject();
  return out.Take();
}

TEST(StoredItemJsonTest, EveryTypeRendersAsTheDecodedItemDoes) {
  AttributeMap inner;
  inner["empty map"] = AttributeValue::Map({});
  inner["empty list"] = AttributeValue::List({});
  inner["bs"] = AttributeValue::Set(AttributeType::kBS, {std::string("\x00\xff", 2), "b"});
  Item item;
  item["pk"] = AttributeValue::String("quote \" backslash \\ newline \n é \x01");
  item["n"] = AttributeValue::NumberText("-12.5E+3");
  item["b"] = AttributeValue::Binary(std::string("\x00\x01\xfe\xff", 4));
  item["yes"] = AttributeValue::Bool(true);
  item["no"] = AttributeValue::Bool(false);
  item["nothing"] = AttributeValue::Null();
  item["ss"] = AttributeValue::Set(AttributeType::kSS, {"a", "b\"c"});
  item["ns"] = AttributeValue::Set(AttributeType::kNS, {"1", "-2.5"});
  item["map"] = AttributeValue::Map(inner);
  item["list"] = AttributeValue::List({AttributeValue::String("s"), AttributeValue::Map(inner),
                                       AttributeValue::Null(),
                                       AttributeValue::List({AttributeValue::NumberText("7")}),
                                       AttributeValue::Set(AttributeType::kSS, {"x"})});
  item[""] = AttributeValue::String("");  // no such name in DynamoDB, but the codec allows it
  const std::string encoding = storage::EncodeItem(item);
  EXPECT_EQ(FromStored(encoding), FromItem(item));
  EXPECT_EQ(storage::StoredItemSize(encoding).value(), ItemSize(item));
  EXPECT_EQ(FromStored(storage::EncodeItem(Item{})), "{}");
}

TEST(StoredItemJsonTest, ACorruptRecordIsAnError) {
  Item item;
  item["pk"] = AttributeValue::String("value");
  const std::string encoding = storage::EncodeItem(item);
  JsonWriter out;
  JsonAttributeSink sink(out);
  for (size_t length = 0; length < encoding.size(); ++length) {
    EXPECT_FALSE(storage::VisitStoredItem(encoding.substr(0, length), sink).ok()) << length;
  }
  EXPECT_FALSE(storage::VisitStoredItem(encoding + "x", sink).ok());
}

}  // namespace
}  // namespace ddbd::wire
