// AttributeValue ⇄ DynamoDB JSON ({"S":"x"}, {"N":"1"}, {"M":{…}}, …), validated as DynamoDB
// validates values: exactly one type, numbers, base64, non-empty duplicate-free sets, NULL
// true, nesting depth ≤ 32, attribute-name lengths. Entry points: ParseAttributeValue,
// ParseAttributeMap, WriteAttributeValue, WriteAttributeMap.
#pragma once

#include <array>
#include <cstdint>
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

namespace internal {

// `{"<type>":`, the opening of a value of a type, by the type's stored number (1..10), in eight
// bytes so that it is copied as one word (a third of a Query's rendering went to writing these
// pieces one call at a time, then a tenth to a table of strings, callgrind).
struct TypeOpening {
  char padded[8] = {};
  uint8_t length = 0;
};
inline constexpr std::array<TypeOpening, 11> kTypeOpenings = [] {
  std::array<TypeOpening, 11> openings{};
  for (size_t number = 0; number < openings.size(); ++number) {
    const std::string_view name = TypeName(static_cast<AttributeType>(number));  // "?" for 0
    TypeOpening& opening = openings[number];
    for (char c : std::string_view("{\"")) opening.padded[opening.length++] = c;
    for (char c : name) opening.padded[opening.length++] = c;
    for (char c : std::string_view("\":")) opening.padded[opening.length++] = c;
  }
  return openings;
}();
inline const TypeOpening& OpeningOf(AttributeType type) {
  const auto number = static_cast<size_t>(type);
  return kTypeOpenings[number < kTypeOpenings.size() ? number : 0];
}

bool StringSetsSorted();

}  // namespace internal

// Writes the attributes it receives as WriteAttributeMap writes an Item's, less the braces
// around the whole item (the caller's): the same bytes for the same attributes. An
// AttributeSink with its frequent calls inline, for storage::VisitStoredItem's walk.
class JsonAttributeSink {
 public:
  explicit JsonAttributeSink(JsonWriter& out) : out_(out) {}
  void Name(std::string_view name) { out_.Key(name); }
  void Scalar(AttributeType type, std::string_view bytes) {
    if (type == AttributeType::kB) return Binary(bytes);
    Opening(type).String(bytes).EndObject();
  }
  void Bool(bool value) { out_.Raw(value ? R"({"BOOL":true})" : R"({"BOOL":false})"); }
  void Null() { out_.Raw(R"({"NULL":true})"); }
  void BeginMap() { Opening(AttributeType::kM).BeginObject(); }
  void EndMap() { out_.EndObject().EndObject(); }
  void BeginList() { Opening(AttributeType::kL).BeginArray(); }
  void EndList() { out_.EndArray().EndObject(); }
  void BeginSet(AttributeType type);
  // A held member's bytes stay valid until EndSet: a sink's caller visits one encoded item.
  void SetMember(std::string_view bytes) {
    if (holding_) {
      held_members_.push_back(bytes);
    } else if (set_type_ == AttributeType::kBS) {
      BinaryMember(bytes);
    } else {
      out_.String(bytes);
    }
  }
  void EndSet();

 private:
  JsonWriter& Opening(AttributeType type) {
    const internal::TypeOpening& opening = internal::OpeningOf(type);
    return out_.RawWord(opening.padded, opening.length);
  }
  void Binary(std::string_view bytes);
  void BinaryMember(std::string_view bytes);

  JsonWriter& out_;
  AttributeType set_type_ = AttributeType::kSS;  // of the set being written (sets do not nest)
  // The members of a string set held back to be written sorted (SetStringSetsSorted).
  std::vector<std::string_view> held_members_;
  bool holding_ = false;
};

static_assert(AttributeSink<JsonAttributeSink>);

}  // namespace ddbd::wire
