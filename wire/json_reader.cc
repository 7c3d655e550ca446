// SerializationException texts for type mismatches (spec/limits.md §1.4), in one place.
#include "wire/json_reader.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace ddbd::wire {
namespace {

using simdjson::dom::element_type;

// Jackson's token name of a JSON value, which DynamoDB quotes in its messages.
std::string_view TokenName(JsonValue value) {
  switch (value.type()) {
    case element_type::INT64:
    case element_type::UINT64:
      return "NUMBER_VALUE";
    case element_type::DOUBLE:
      return "DECIMAL_VALUE";
    case element_type::BOOL:
      return bool(value.get_bool()) ? "TRUE_VALUE" : "FALSE_VALUE";
    case element_type::STRING:
      return "STRING_VALUE";
    default:
      return "VALUE";
  }
}

Error Mismatch(JsonValue value, std::string_view target) {
  switch (value.type()) {
    case element_type::OBJECT:
      return Error::Serialization("Start of structure or map found where not expected");
    case element_type::ARRAY:
      return Error::Serialization("Start of list found where not expected");
    default:
      return Error::Serialization(std::string(TokenName(value)) + " cannot be converted to " +
                                  std::string(target));
  }
}

template <typename T, typename Convert>
Result<std::optional<T>> GetMember(JsonObject object, std::string_view name, Convert convert) {
  std::optional<JsonValue> member = Member(object, name);
  if (!member) return std::optional<T>();
  DDBD_ASSIGN_OR_RETURN(T value, convert(*member));
  return std::optional<T>(std::move(value));
}

}  // namespace

std::optional<JsonValue> Member(JsonObject object, std::string_view name) {
  JsonValue value;
  if (object.at_key(name).get(value) != simdjson::SUCCESS) return std::nullopt;
  if (value.is_null()) return std::nullopt;
  return value;
}

Result<std::string_view> AsString(JsonValue value) {
  std::string_view s;
  if (value.get_string().get(s) == simdjson::SUCCESS) return s;
  return Mismatch(value, "String");
}

Result<int64_t> AsLong(JsonValue value) {
  switch (value.type()) {
    case element_type::INT64:
      return int64_t(value.get_int64());
    case element_type::UINT64:
      return Error::Serialization("Numeric value out of range of long");
    case element_type::DOUBLE: {
      // Truncated toward zero, as Jackson coerces; past the range of a long, refused (a cast
      // would be undefined behaviour).
      const double number = value.get_double();
      if (!(number >= -0x1p63 && number < 0x1p63)) {
        return Error::Serialization("Numeric value out of range of long");
      }
      return static_cast<int64_t>(number);
    }
    case element_type::STRING:
      return Error::Serialization("STRING_VALUE cannot be converted to Long");
    default:
      return Mismatch(value, "Long");
  }
}

Result<double> AsDouble(JsonValue value) {
  switch (value.type()) {
    case element_type::INT64:
      return static_cast<double>(int64_t(value.get_int64()));
    case element_type::UINT64:
      return static_cast<double>(uint64_t(value.get_uint64()));
    case element_type::DOUBLE:
      return double(value.get_double());
    default:
      return Mismatch(value, "Double");
  }
}

Result<bool> AsBool(JsonValue value) {
  if (value.type() == element_type::BOOL) return bool(value.get_bool());
  if (value.type() == element_type::STRING) {
    std::string text(std::string_view(value.get_string()));
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    if (text == "true" || text == "1" || text == "yes") return true;
    if (text == "false" || text == "0" || text == "no") return false;
  }
  return Mismatch(value, "Boolean");
}

Result<std::optional<double>> AsTimestamp(JsonValue value) {
  double seconds = 0;
  if (value.get_double().get(seconds) == simdjson::SUCCESS) return std::optional<double>(seconds);
  if (value.type() == element_type::STRING) return std::optional<double>();
  return Mismatch(value, "Date");
}

Result<JsonObject> AsObject(JsonValue value) {
  JsonObject object;
  if (value.get_object().get(object) == simdjson::SUCCESS) return object;
  if (value.type() == element_type::ARRAY) {
    return Error::Serialization("Start of list found where not expected");
  }
  return Error::Serialization("Unexpected field type");
}

Result<JsonArray> AsArray(JsonValue value) {
  JsonArray array;
  if (value.get_array().get(array) == simdjson::SUCCESS) return array;
  if (value.type() == element_type::OBJECT) {
    return Error::Serialization("Start of structure or map found where not expected");
  }
  if (value.type() == element_type::STRING) {
    return Error::Serialization("Unrecognized collection type class java.lang.String");
  }
  return Error::Serialization("Unexpected field type");
}

Result<std::optional<std::string_view>> GetString(JsonObject object, std::string_view name) {
  return GetMember<std::string_view>(object, name, AsString);
}
Result<std::optional<int64_t>> GetLong(JsonObject object, std::string_view name) {
  return GetMember<int64_t>(object, name, AsLong);
}
Result<std::optional<bool>> GetBool(JsonObject object, std::string_view name) {
  return GetMember<bool>(object, name, AsBool);
}
Result<std::optional<double>> GetDouble(JsonObject object, std::string_view name) {
  return GetMember<double>(object, name, AsDouble);
}
Result<std::optional<JsonObject>> GetObject(JsonObject object, std::string_view name) {
  return GetMember<JsonObject>(object, name, AsObject);
}
Result<std::optional<JsonArray>> GetArray(JsonObject object, std::string_view name) {
  return GetMember<JsonArray>(object, name, AsArray);
}

size_t MemberCount(JsonObject object) {
  size_t n = 0;
  for (auto field : object) {
    (void)field;
    ++n;
  }
  return n;
}

}  // namespace ddbd::wire
