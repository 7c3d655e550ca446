// DynamoDB JSON codec for attribute values. Parsing keeps going after the first rule
// violation so that a later wrong JSON type still wins, then reports the first violation.
#include "wire/attribute_value_json.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <string>
#include <unordered_set>

#include "model/number.h"
#include "wire/base64.h"

namespace ddbd::wire {
namespace {

constexpr size_t kMaxAttributeNameBytes = 65535;

class ValueParser {
 public:
  // Hard errors (wrong JSON types) are returned; rule violations are recorded.
  Result<AttributeValue> Value(JsonValue json, int depth);
  Result<Item> Map(JsonValue json, int depth);
  Status Finish() {
    if (violation_) return std::move(*violation_);
    return OkStatus();
  }

 private:
  void Violation(std::string message) {
    if (!violation_) violation_ = Error::Validation(std::move(message));
  }
  void CheckName(std::string_view name) {
    if (name.empty()) {
      Violation("One or more parameter values were invalid: Empty attribute name");
    } else if (name.size() > kMaxAttributeNameBytes) {
      Violation(
          "1 validation error detected: Attribute name is too large, must be less than "
          "65536 bytes");
    }
  }
  std::string CanonicalNumber(std::string_view literal) {
    Result<Number> parsed = Number::Parse(literal);
    if (!parsed.ok()) {
      Violation(parsed.error().message());
      return "0";
    }
    return parsed->ToString();
  }
  Result<AttributeValue> Set(AttributeType type, JsonValue json);

  std::optional<Error> violation_;
};

AttributeType TypeOfKey(std::string_view key, bool& known) {
  static constexpr std::pair<std::string_view, AttributeType> kTypes[] = {
      {"S", AttributeType::kS},       {"N", AttributeType::kN},       {"B", AttributeType::kB},
      {"BOOL", AttributeType::kBool}, {"NULL", AttributeType::kNull}, {"M", AttributeType::kM},
      {"L", AttributeType::kL},       {"SS", AttributeType::kSS},     {"NS", AttributeType::kNS},
      {"BS", AttributeType::kBS},
  };
  for (const auto& [name, type] : kTypes) {
    if (name == key) {
      known = true;
      return type;
    }
  }
  known = false;
  return AttributeType::kNull;
}

std::string JoinForMessage(const std::vector<std::string>& members) {
  std::string out = "[";
  for (size_t i = 0; i < members.size(); ++i) {
    if (i) out += ", ";
    out += members[i];
  }
  return out + "]";
}

Result<AttributeValue> ValueParser::Value(JsonValue json, int depth) {
  DDBD_ASSIGN_OR_RETURN(JsonObject object, AsObject(json));
  if (depth > kMaxNestingDepth) {
    Violation(
        "Nesting Levels have exceeded supported limits: Attributes in the item have nested "
        "levels beyond supported limit");
  }
  std::optional<std::pair<AttributeType, JsonValue>> chosen;
  int type_count = 0;
  for (auto field : object) {
    bool known = false;
    AttributeType type = TypeOfKey(field.key, known);
    if (!known || field.value.is_null()) continue;
    ++type_count;
    if (!chosen) chosen.emplace(type, field.value);
  }
  if (type_count == 0) {
    Violation(
        "Supplied AttributeValue is empty, must contain exactly one of the supported "
        "datatypes");
    return AttributeValue::Null();
  }
  if (type_count > 1) {
    Violation(
        "Supplied AttributeValue has more than one datatypes set, must contain exactly one "
        "of the supported datatypes");
  }
  auto [type, value] = *chosen;
  switch (type) {
    case AttributeType::kS: {
      DDBD_ASSIGN_OR_RETURN(std::string_view s, AsString(value));
      return AttributeValue::String(std::string(s));
    }
    case AttributeType::kN: {
      DDBD_ASSIGN_OR_RETURN(std::string_view s, AsString(value));
      return AttributeValue::NumberText(CanonicalNumber(s));
    }
    case AttributeType::kB: {
      DDBD_ASSIGN_OR_RETURN(std::string_view s, AsString(value));
      DDBD_ASSIGN_OR_RETURN(std::string bytes, Base64Decode(s));
      return AttributeValue::Binary(std::move(bytes));
    }
    case AttributeType::kBool: {
      DDBD_ASSIGN_OR_RETURN(bool b, AsBool(value));
      return AttributeValue::Bool(b);
    }
    case AttributeType::kNull: {
      DDBD_ASSIGN_OR_RETURN(bool b, AsBool(value));
      if (!b) {
        Violation(
            "One or more parameter values were invalid: Null attribute value types must "
            "have the value of true");
      }
      return AttributeValue::Null();
    }
    case AttributeType::kM: {
      DDBD_ASSIGN_OR_RETURN(Item map, Map(value, depth + 1));
      return AttributeValue::Map(std::move(map));
    }
    case AttributeType::kL: {
      DDBD_ASSIGN_OR_RETURN(JsonArray array, AsArray(value));
      AttributeList list;
      for (JsonValue element : array) {
        DDBD_ASSIGN_OR_RETURN(AttributeValue v, Value(element, depth + 1));
        list.push_back(std::move(v));
      }
      return AttributeValue::List(std::move(list));
    }
    case AttributeType::kSS:
    case AttributeType::kNS:
    case AttributeType::kBS:
      return Set(type, value);
  }
  return AttributeValue::Null();
}

Result<AttributeValue> ValueParser::Set(AttributeType type, JsonValue json) {
  DDBD_ASSIGN_OR_RETURN(JsonArray array, AsArray(json));
  std::vector<std::string> members;
  std::vector<std::string> as_sent;  // for the duplicates message
  for (JsonValue element : array) {
    DDBD_ASSIGN_OR_RETURN(std::string_view s, AsString(element));
    as_sent.emplace_back(s);
    if (type == AttributeType::kNS) {
      members.push_back(CanonicalNumber(s));
    } else if (type == AttributeType::kBS) {
      DDBD_ASSIGN_OR_RETURN(std::string bytes, Base64Decode(s));
      members.push_back(std::move(bytes));
    } else {
      members.emplace_back(s);
    }
  }
  if (members.empty()) {
    Violation(type == AttributeType::kSS
                  ? "One or more parameter values were invalid: An string set  may not be empty"
              : type == AttributeType::kNS
                  ? "One or more parameter values were invalid: An number set  may not be empty"
                  : "One or more parameter values were invalid: Binary sets should not be empty");
  }
  std::unordered_set<std::string_view> seen;
  bool duplicates = !std::all_of(members.begin(), members.end(),
                                 [&](const std::string& m) { return seen.insert(m).second; });
  if (duplicates) {
    Violation(type == AttributeType::kSS
                  ? "One or more parameter values were invalid: Input collection " +
                        JoinForMessage(as_sent) + " contains duplicates."
              : type == AttributeType::kNS
                  ? std::string("Input collection contains duplicates")
                  : "One or more parameter values were invalid: Input collection " +
                        JoinForMessage(as_sent) + "of type BS contains duplicates.");
  }
  return AttributeValue::Set(type, std::move(members));
}

Result<Item> ValueParser::Map(JsonValue json, int depth) {
  DDBD_ASSIGN_OR_RETURN(JsonObject object, AsObject(json));
  Item map;
  for (auto field : object) {
    if (field.value.is_null()) continue;
    CheckName(field.key);
    DDBD_ASSIGN_OR_RETURN(AttributeValue value, Value(field.value, depth));
    map.insert_or_assign(std::string(field.key), std::move(value));
  }
  return map;
}

}  // namespace

Result<AttributeValue> ParseAttributeValue(JsonValue json) {
  ValueParser parser;
  DDBD_ASSIGN_OR_RETURN(AttributeValue value, parser.Value(json, 1));
  DDBD_RETURN_IF_ERROR(parser.Finish());
  return value;
}

Result<Item> ParseAttributeMap(JsonValue json) {
  ValueParser parser;
  DDBD_ASSIGN_OR_RETURN(Item map, parser.Map(json, 1));
  DDBD_RETURN_IF_ERROR(parser.Finish());
  return map;
}

namespace {

std::atomic<bool> string_sets_sorted{false};

}  // namespace

bool internal::StringSetsSorted() { return string_sets_sorted.load(std::memory_order_relaxed); }

void SetStringSetsSorted(bool sorted) { string_sets_sorted.store(sorted); }

void WriteAttributeValue(JsonWriter& out, const AttributeValue& value) {
  out.BeginObject().Key(TypeName(value.type()));
  switch (value.type()) {
    case AttributeType::kS:
    case AttributeType::kN:
      out.String(value.scalar());
      break;
    case AttributeType::kB:
      out.String(Base64Encode(value.scalar()));
      break;
    case AttributeType::kBool:
      out.Bool(value.boolean());
      break;
    case AttributeType::kNull:
      out.Bool(true);
      break;
    case AttributeType::kM:
      WriteAttributeMap(out, value.map());
      break;
    case AttributeType::kL:
      out.BeginArray();
      for (const auto& element : value.list()) WriteAttributeValue(out, element);
      out.EndArray();
      break;
    case AttributeType::kSS:
      if (internal::StringSetsSorted()) {
        std::vector<std::string_view> members(value.set().begin(), value.set().end());
        std::sort(members.begin(), members.end());
        out.BeginArray();
        for (std::string_view member : members) out.String(member);
        out.EndArray();
        break;
      }
      [[fallthrough]];
    case AttributeType::kNS:
    case AttributeType::kBS:
      out.BeginArray();
      for (const auto& member : value.set()) {
        out.String(value.type() == AttributeType::kBS ? Base64Encode(member) : member);
      }
      out.EndArray();
      break;
  }
  out.EndObject();
}

void WriteAttributeMap(JsonWriter& out, const AttributeMap& map) {
  out.BeginObject();
  for (const auto& [name, value] : map) {
    out.Key(name);
    WriteAttributeValue(out, value);
  }
  out.EndObject();
}

void JsonAttributeSink::Binary(std::string_view bytes) {
  Opening(AttributeType::kB).String(Base64Encode(bytes)).EndObject();
}

void JsonAttributeSink::BinaryMember(std::string_view bytes) { out_.String(Base64Encode(bytes)); }

void JsonAttributeSink::BeginSet(AttributeType type) {
  set_type_ = type;
  holding_ = type == AttributeType::kSS && internal::StringSetsSorted();
  Opening(type).BeginArray();
}

void JsonAttributeSink::EndSet() {
  if (holding_) {
    std::sort(held_members_.begin(), held_members_.end());
    for (std::string_view member : held_members_) out_.String(member);
    held_members_.clear();
    holding_ = false;
  }
  out_.EndArray().EndObject();
}

}  // namespace ddbd::wire
