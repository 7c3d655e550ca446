// AttributeValue ⇄ DynamoDB JSON ({"S":"x"}, {"N":"1"}, {"M":{…}}, …), validated as DynamoDB
// validates values: exactly one type, numbers, base64, non-empty duplicate-free sets, NULL
// true, nesting depth ≤ 32, attribute-name lengths. Entry points: ParseAttributeValue,
// ParseAttributeMap, WriteAttributeValue, WriteAttributeMap.
#pragma once

#include "model/attribute_value.h"
#include "model/result.h"
#include "server/wire/json_reader.h"
#include "server/wire/json_writer.h"

namespace ddbd::server::wire {

// A wrong JSON type anywhere in the value is reported (SerializationException) before any
// rule violation (ValidationException), as DynamoDB deserializes before it validates.
Result<AttributeValue> ParseAttributeValue(JsonValue json);
// An attribute-name → value map: an Item, a Key, ExpressionAttributeValues.
Result<Item> ParseAttributeMap(JsonValue json);

void WriteAttributeValue(JsonWriter& out, const AttributeValue& value);
void WriteAttributeMap(JsonWriter& out, const AttributeMap& map);

}  // namespace ddbd::server::wire
