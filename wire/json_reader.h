// Typed access to request members on a simdjson DOM, with DynamoDB's SerializationException
// messages for members of the wrong JSON type. A member that is absent or JSON null reads as
// nullopt (DynamoDB treats null as absent). Entry points: Get* (member of an object), As*
// (a bare element, e.g. a list member), JavaClass (value rendering for messages).
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <string_view>

#include "model/result.h"

namespace ddbd::wire {

using JsonValue = simdjson::dom::element;
using JsonObject = simdjson::dom::object;
using JsonArray = simdjson::dom::array;

std::optional<JsonValue> Member(JsonObject object, std::string_view name);

Result<std::string_view> AsString(JsonValue value);
Result<int64_t> AsLong(JsonValue value);
// A Double member: any JSON number (a string is refused, as Jackson refuses it for a double
// in DynamoDB's requests).
Result<double> AsDouble(JsonValue value);
Result<bool> AsBool(JsonValue value);
// A timestamp in epoch seconds (fractions allowed): a JSON number. A string reads as nullopt
// (how DynamoDB reads one is not recorded); any other type is a SerializationException
// (texts unverified, shaped like Jackson's for java.util.Date).
Result<std::optional<double>> AsTimestamp(JsonValue value);
Result<JsonObject> AsObject(JsonValue value);  // a structure or a map
Result<JsonArray> AsArray(JsonValue value);

Result<std::optional<std::string_view>> GetString(JsonObject object, std::string_view name);
Result<std::optional<int64_t>> GetLong(JsonObject object, std::string_view name);
Result<std::optional<bool>> GetBool(JsonObject object, std::string_view name);
Result<std::optional<double>> GetDouble(JsonObject object, std::string_view name);
Result<std::optional<JsonObject>> GetObject(JsonObject object, std::string_view name);
Result<std::optional<JsonArray>> GetArray(JsonObject object, std::string_view name);

// Number of members of an object (simdjson's size() saturates at 0xFFFFFF).
size_t MemberCount(JsonObject object);

}  // namespace ddbd::wire
