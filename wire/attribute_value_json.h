// AttributeValue ⇄ DynamoDB JSON ({"S":"x"}, {"N":"1"}, {"M":{…}}, …), validated as DynamoDB
// validates values: exactly one type, numbers, base64, non-empty duplicate-free sets, NULL
// true, nesting depth ≤ 32, attribute-name lengths. Entry points: ParseAttributeValue,
// ParseAttributeMap, WriteAttributeValue, WriteAttributeMap.
#pragma once

#include <string_view>
#include <vector>

#include "model/attribute_sink.h"
#include "model/attribute_value.h"
#include "model/result.h"
#include "wire/json_reader.h"
#include "wire/json_writer.h"

namespace ddbd::wire {

// A wrong JSON type anywhere in the value is reported (SerializationException) before any
// rule violation (ValidationException), as DynamoDB deserializes before it validates.
Result<AttributeValue> ParseAttributeValue(JsonValue json);
// An attribute-name → value map: an Item, a Key, ExpressionAttributeValues.
Result<Item> ParseAttributeMap(JsonValue json);

void WriteAttributeValue(JsonWriter& out, const AttributeValue& value);
void WriteAttributeMap(JsonWriter& out, const AttributeMap& map);

// Whether string sets are written with their members in sorted order (byte order of their
// UTF-8, which is code point order) instead of the order they were stored in: DynamoDB Local
// returns them sorted and test suites written against it pin that order (--compat
// dynamodb-local). Process-wide; set at start-up, before requests are served.
void SetStringSetsSorted(bool sorted);

// Writes the attributes it receives as WriteAttributeMap writes an Item's, less the braces
// around the whole item (the caller's): the same bytes for the same attributes.
class JsonAttributeSink : public AttributeSink {
 public:
  explicit JsonAttributeSink(JsonWriter& out) : out_(out) {}
  void Name(std::string_view name) override;
  void Scalar(AttributeType type, std::string_view bytes) override;
  void Bool(bool value) override;
  void Null() override;
  void BeginMap() override;
  void EndMap() override;
  void BeginList() override;
  void EndList() override;
  void BeginSet(AttributeType type) override;
  void SetMember(std::string_view bytes) override;
  void EndSet() override;

 private:
  JsonWriter& out_;
  AttributeType set_type_ = AttributeType::kSS;  // of the set being written (sets do not nest)
  // The members of a string set held back to be written sorted (SetStringSetsSorted).
  std::vector<std::string_view> held_members_;
  bool holding_ = false;
};

}  // namespace ddbd::wire
