// Reading and binding the expression members of a request.
#include "server/ops/expression_request.h"

#include <string>

#include "expressions/parse_cache.h"
#include "server/ops/legacy_parameters.h"
#include "wire/attribute_value_json.h"

namespace ddbd::server::ops {
namespace {

using expressions::ExpressionKind;

bool IsPlaceholderKey(std::string_view key, char sigil) {
  if (key.size() < 2 || key[0] != sigil) return false;
  for (char c : key.substr(1)) {
    const bool word =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!word) return false;
  }
  return true;
}

Result<std::map<std::string, std::string, std::less<>>> ReadNames(wire::JsonObject body) {
  std::map<std::string, std::string, std::less<>> names;
  DDBD_ASSIGN_OR_RETURN(auto object, wire::GetObject(body, "ExpressionAttributeNames"));
  if (!object) return names;
  for (auto field : *object) {
    DDBD_ASSIGN_OR_RETURN(std::string_view name, wire::AsString(field.value));
    if (!IsPlaceholderKey(field.key, '#')) {
      return Error::Validation(
          "ExpressionAttributeNames contains invalid key: Syntax error; "
          "key: \"" +
          std::string(field.key) + "\"");
    }
    if (name.empty()) {
      return Error::Validation(
          "ExpressionAttributeNames contains invalid value: Empty attribute "
          "name for key " +
          std::string(field.key));
    }
    names.emplace(std::string(field.key), std::string(name));
  }
  if (names.empty()) return Error::Validation("ExpressionAttributeNames must not be empty");
  return names;
}

Result<std::map<std::string, AttributeValue, std::less<>>> ReadValues(wire::JsonObject body) {
  std::map<std::string, AttributeValue, std::less<>> values;
  DDBD_ASSIGN_OR_RETURN(auto object, wire::GetObject(body, "ExpressionAttributeValues"));
  if (!object) return values;
  for (auto field : *object) {
    if (!IsPlaceholderKey(field.key, ':')) {
      return Error::Validation(
          "ExpressionAttributeValues contains invalid key: Syntax error; "
          "key: \"" +
          std::string(field.key) + "\"");
    }
    Result<AttributeValue> value = wire::ParseAttributeValue(field.value);
    if (!value.ok()) {
      if (value.error().code() != ErrorCode::kValidation) return std::move(value).error();
      return Error::Validation("ExpressionAttributeValues contains invalid value: " +
                               value.error().message() + " for key " + std::string(field.key));
    }
    values.emplace(std::string(field.key), std::move(value).value());
  }
  if (values.empty()) return Error::Validation("ExpressionAttributeValues must not be empty");
  return values;
}

// "ConditionExpression and UpdateExpression are null": the value-bearing expression members
// of the operation, for the message about values given without any expression.
std::string ValueBearingMembers(const ExpressionMembers& accepted) {
  std::vector<std::string_view> members;
  if (accepted.update) members.push_back("UpdateExpression");
  if (accepted.condition) members.push_back("ConditionExpression");
  if (accepted.key_condition) members.push_back("KeyConditionExpression");
  if (accepted.filter) members.push_back("FilterExpression");
  if (accepted.search_condition) members.push_back("SearchConditionExpression");
  std::string out;
  for (size_t i = 0; i < members.size(); ++i) {
    if (i) out += " and ";
    out += members[i];
  }
  return out + (members.size() == 1 ? " is null" : " are null");
}

Result<std::optional<std::string_view>> ReadText(wire::JsonObject body, bool accepted,
                                                 std::string_view member) {
  if (!accepted) return std::optional<std::string_view>();
  return wire::GetString(body, member);
}

}  // namespace

namespace {

// The expression members' texts of one request.
struct ExpressionTexts {
  std::optional<std::string_view> key_condition, update, condition, filter, projection, search;
  bool any_value_bearing() const {
    return key_condition || update || condition || filter || search;
  }
};

Result<ExpressionTexts> ReadTexts(wire::JsonObject body, const ExpressionMembers& accepted) {
  ExpressionTexts texts;
  DDBD_ASSIGN_OR_RETURN(texts.key_condition,
                        ReadText(body, accepted.key_condition, "KeyConditionExpression"));
  DDBD_ASSIGN_OR_RETURN(texts.update, ReadText(body, accepted.update, "UpdateExpression"));
  DDBD_ASSIGN_OR_RETURN(texts.condition, ReadText(body, accepted.condition, "ConditionExpression"));
  DDBD_ASSIGN_OR_RETURN(texts.filter, ReadText(body, accepted.filter, "FilterExpression"));
  DDBD_ASSIGN_OR_RETURN(texts.projection,
                        ReadText(body, accepted.projection, "ProjectionExpression"));
  DDBD_ASSIGN_OR_RETURN(texts.search,
                        ReadText(body, accepted.search_condition, "SearchConditionExpression"));
  return texts;
}

// DynamoDB's refusals of names and values without expressions, and of expression members
// mixed with legacy ones.
Status CheckMembersGoTogether(wire::JsonObject body, const ExpressionMembers& accepted,
                              const ExpressionTexts& texts,
                              const std::vector<std::string>& legacy) {
  if (!texts.any_value_bearing() && !texts.projection &&
      wire::Member(body, "ExpressionAttributeNames")) {
    return Error::Validation(
        "ExpressionAttributeNames can only be specified when using expressions");
  }
  if (!texts.any_value_bearing() && wire::Member(body, "ExpressionAttributeValues")) {
    return Error::Validation(
        "ExpressionAttributeValues can only be specified when using "
        "expressions: " +
        ValueBearingMembers(accepted));
  }
  // KeyConditions conflicts with KeyConditionExpression alone: DynamoDBMapper queries send
  // KeyConditions with a FilterExpression or ProjectionExpression.
  // Pinned by: test_legacy_parameters.py::test_key_conditions_mix_with_filter_and_projection
  std::vector<std::string> conflicting = legacy;
  if (!texts.key_condition) std::erase(conflicting, "KeyConditions");
  if (conflicting.empty() || (!texts.any_value_bearing() && !texts.projection)) return OkStatus();
  std::vector<std::string_view> expression_members;
  for (auto [text, name] : {std::pair{texts.key_condition, "KeyConditionExpression"},
                            {texts.update, "UpdateExpression"},
                            {texts.condition, "ConditionExpression"},
                            {texts.filter, "FilterExpression"},
                            {texts.projection, "ProjectionExpression"}}) {
    if (text) expression_members.push_back(name);
  }
  auto join = [](const auto& names) {
    std::string out;
    for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + std::string(names[i]);
    return out;
  };
  return Error::Validation(
      "Can not use both expression and non-expression parameters in the "
      "same request: Non-expression parameters: {" +
      join(conflicting) + "} Expression parameters: {" + join(expression_members) + "}");
}

// Parses (through the parse cache) and binds one condition member.
Status ParseCondition(std::optional<std::string_view> text, ExpressionKind kind,
                      expressions::Bindings& bindings,
                      std::shared_ptr<const expressions::Condition>& into) {
  if (!text) return OkStatus();
  DDBD_ASSIGN_OR_RETURN(into, expressions::ParsedCondition(*text, kind));
  return bindings.BindCondition(*into, kind);
}

Status ParseAndBind(const ExpressionTexts& texts, ExpressionInputs& in) {
  DDBD_RETURN_IF_ERROR(ParseCondition(texts.key_condition, ExpressionKind::kKeyCondition,
                                      in.bindings, in.key_condition));
  if (texts.update) {
    DDBD_ASSIGN_OR_RETURN(in.update, expressions::ParsedUpdate(*texts.update));
    DDBD_RETURN_IF_ERROR(in.bindings.BindUpdate(*in.update));
  }
  DDBD_RETURN_IF_ERROR(
      ParseCondition(texts.condition, ExpressionKind::kCondition, in.bindings, in.condition));
  DDBD_RETURN_IF_ERROR(
      ParseCondition(texts.filter, ExpressionKind::kFilter, in.bindings, in.filter));
  DDBD_RETURN_IF_ERROR(ParseCondition(texts.search, ExpressionKind::kSearchCondition, in.bindings,
                                      in.search_condition));
  if (texts.projection) {
    DDBD_ASSIGN_OR_RETURN(auto projection, expressions::ParsedProjection(*texts.projection));
    DDBD_RETURN_IF_ERROR(in.bindings.BindProjection(*projection));
    std::vector<expressions::ResolvedPath> paths;
    for (const auto& path : projection->paths) paths.push_back(in.bindings.Resolve(path));
    in.projection = std::move(paths);
  }
  return in.bindings.CheckAllUsed();
}

}  // namespace

Result<ExpressionInputs> ReadExpressions(wire::JsonObject body, const ExpressionMembers& accepted) {
  DDBD_ASSIGN_OR_RETURN(ExpressionTexts texts, ReadTexts(body, accepted));
  const std::vector<std::string> legacy = LegacyMembersPresent(body, accepted);
  DDBD_RETURN_IF_ERROR(CheckMembersGoTogether(body, accepted, texts, legacy));
  DDBD_ASSIGN_OR_RETURN(auto names, ReadNames(body));
  DDBD_ASSIGN_OR_RETURN(auto values, ReadValues(body));
  ExpressionInputs in;
  in.bindings = expressions::Bindings(std::move(names), std::move(values));
  DDBD_RETURN_IF_ERROR(ParseAndBind(texts, in));
  if (!legacy.empty()) DDBD_RETURN_IF_ERROR(TranslateLegacy(body, accepted, in));
  return in;
}

}  // namespace ddbd::server::ops
