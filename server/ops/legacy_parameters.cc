// The legacy parameters on the wire: read into expressions/legacy.h's typed forms, which
// translates them.
#include "server/ops/legacy_parameters.h"

#include <algorithm>
#include <span>

#include "expressions/legacy.h"
#include "server/ops/common.h"
#include "wire/attribute_value_json.h"

namespace ddbd::server::ops {
namespace {

using expressions::Condition;
namespace legacy = expressions::legacy;

struct LegacyMember {
  std::string_view name;
  bool ExpressionMembers::*role;
};

constexpr LegacyMember kLegacyMembers[] = {
    {"AttributesToGet", &ExpressionMembers::projection},
    {"AttributeUpdates", &ExpressionMembers::update},
    {"ConditionalOperator", nullptr},  // goes with Expected, QueryFilter or ScanFilter
    {"Expected", &ExpressionMembers::condition},
    {"KeyConditions", &ExpressionMembers::key_condition},
    {"QueryFilter", &ExpressionMembers::filter},
    {"ScanFilter", &ExpressionMembers::filter},
};

constexpr size_t kMaxAttributesToGet = 255;

Error Invalid(std::string detail) {
  return Error::Validation("One or more parameter values were invalid: " + detail);
}

Result<std::vector<AttributeValue>> ReadValueList(wire::JsonObject condition) {
  std::vector<AttributeValue> values;
  DDBD_ASSIGN_OR_RETURN(auto list, wire::GetArray(condition, "AttributeValueList"));
  if (!list) return values;
  for (wire::JsonValue element : *list) {
    DDBD_ASSIGN_OR_RETURN(AttributeValue value, wire::ParseAttributeValue(element));
    values.push_back(std::move(value));
  }
  return values;
}

// The entries of Expected, KeyConditions, QueryFilter or ScanFilter, as typed forms. Every
// member is deserialised before anything is checked, as DynamoDB does.
Result<std::vector<legacy::Comparison>> ReadComparisons(wire::JsonObject map, bool expected) {
  std::vector<legacy::Comparison> entries;
  for (auto field : map) {
    legacy::Comparison entry;
    entry.attribute = std::string(field.key);
    DDBD_ASSIGN_OR_RETURN(wire::JsonObject spec, wire::AsObject(field.value));
    DDBD_ASSIGN_OR_RETURN(auto op, wire::GetString(spec, "ComparisonOperator"));
    if (op) entry.op = std::string(*op);
    entry.has_value_list = wire::Member(spec, "AttributeValueList").has_value();
    DDBD_ASSIGN_OR_RETURN(entry.values, ReadValueList(spec));
    if (expected) {
      DDBD_ASSIGN_OR_RETURN(entry.exists, wire::GetBool(spec, "Exists"));
      if (std::optional<wire::JsonValue> value = wire::Member(spec, "Value")) {
        DDBD_ASSIGN_OR_RETURN(entry.value, wire::ParseAttributeValue(*value));
      }
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

Result<std::vector<legacy::AttributeUpdate>> ReadAttributeUpdates(wire::JsonObject updates) {
  std::vector<legacy::AttributeUpdate> entries;
  for (auto field : updates) {
    legacy::AttributeUpdate entry;
    entry.attribute = std::string(field.key);
    DDBD_ASSIGN_OR_RETURN(wire::JsonObject spec, wire::AsObject(field.value));
    DDBD_ASSIGN_OR_RETURN(auto action, wire::GetString(spec, "Action"));
    if (action) entry.action = std::string(*action);
    if (std::optional<wire::JsonValue> value = wire::Member(spec, "Value")) {
      DDBD_ASSIGN_OR_RETURN(entry.value, wire::ParseAttributeValue(*value));
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

// Reads one condition map (`member`, spelled `path` in errors) and translates it.
Status TranslateConditionMember(wire::JsonObject body, std::string_view member,
                                std::string_view path, bool use_or, expressions::Bindings& bindings,
                                std::shared_ptr<const Condition>& into) {
  DDBD_ASSIGN_OR_RETURN(auto map, wire::GetObject(body, member));
  if (!map) return OkStatus();
  const bool expected = member == "Expected";
  DDBD_ASSIGN_OR_RETURN(std::vector<legacy::Comparison> entries, ReadComparisons(*map, expected));
  std::optional<Condition> condition;
  if (expected) {
    DDBD_ASSIGN_OR_RETURN(condition,
                          legacy::TranslateExpected(std::move(entries), use_or, bindings));
  } else {
    DDBD_ASSIGN_OR_RETURN(condition,
                          legacy::TranslateComparisons(std::move(entries), path, use_or, bindings));
  }
  if (condition) into = std::make_shared<const Condition>(std::move(*condition));
  return OkStatus();
}

}  // namespace

std::vector<std::string> LegacyMembersPresent(wire::JsonObject body,
                                              const ExpressionMembers& accepted) {
  std::vector<std::string> present;
  const bool takes_conditions = accepted.condition || accepted.filter;
  for (const auto& member : kLegacyMembers) {
    const bool applies = member.role ? accepted.*member.role : takes_conditions;
    if (applies && wire::Member(body, member.name)) present.emplace_back(member.name);
  }
  return present;
}

Status TranslateLegacy(wire::JsonObject body, const ExpressionMembers& accepted,
                       ExpressionInputs& in) {
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(
      auto conditional_operator,
      ReadEnum(body, "ConditionalOperator", "conditionalOperator", {"AND", "OR"}, errors));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  const bool use_or = conditional_operator == "OR";
  if (conditional_operator && !wire::Member(body, "Expected") &&
      !wire::Member(body, "QueryFilter") && !wire::Member(body, "ScanFilter")) {
    return Error::Validation("ConditionalOperator cannot be used without Filter or Expected");
  }
  if (accepted.condition) {
    DDBD_RETURN_IF_ERROR(
        TranslateConditionMember(body, "Expected", "expected", use_or, in.bindings, in.condition));
  }
  if (accepted.filter) {
    DDBD_RETURN_IF_ERROR(TranslateConditionMember(body, "QueryFilter", "queryFilter", use_or,
                                                  in.bindings, in.filter));
    DDBD_RETURN_IF_ERROR(
        TranslateConditionMember(body, "ScanFilter", "scanFilter", use_or, in.bindings, in.filter));
  }
  if (accepted.key_condition) {
    DDBD_RETURN_IF_ERROR(TranslateConditionMember(body, "KeyConditions", "keyConditions", false,
                                                  in.bindings, in.key_condition));
  }
  if (accepted.update) {
    DDBD_ASSIGN_OR_RETURN(auto updates, wire::GetObject(body, "AttributeUpdates"));
    if (updates) {
      DDBD_ASSIGN_OR_RETURN(auto entries, ReadAttributeUpdates(*updates));
      DDBD_ASSIGN_OR_RETURN(auto update,
                            legacy::TranslateAttributeUpdates(std::move(entries), in.bindings));
      in.update = std::make_shared<const expressions::UpdateExpression>(std::move(update));
    }
  }
  if (accepted.projection) {
    DDBD_ASSIGN_OR_RETURN(auto names, wire::GetArray(body, "AttributesToGet"));
    if (names) {
      std::vector<expressions::ResolvedPath> paths;
      for (wire::JsonValue name : *names) {
        DDBD_ASSIGN_OR_RETURN(std::string_view attribute, wire::AsString(name));
        paths.push_back({expressions::ResolvedStep{std::string(attribute), -1}});
      }
      if (paths.empty()) {
        return Error::Validation(
            "1 validation error detected: Value '[]' at 'attributesToGet' "
            "failed to satisfy constraint: Member must have length greater "
            "than or equal to 1");
      }
      if (paths.size() > kMaxAttributesToGet) {
        return Error::Validation(
            "1 validation error detected: Value '[...]' at 'attributesToGet' "
            "failed to satisfy constraint: Member must have length less than "
            "or equal to 255");
      }
      // Pinned by:
      // test_legacy_parameters.py::test_attributes_to_get_names_are_at_most_65535_characters
      if (std::any_of(paths.begin(), paths.end(), [](const expressions::ResolvedPath& path) {
            return wire::CharacterCount(path[0].name) > 65535;
          })) {
        std::vector<std::string> listed;
        for (const auto& path : paths) listed.push_back(path[0].name);
        wire::ConstraintErrors errors;
        errors.EachMember(wire::JavaList(listed), "attributesToGet",
                          "[Member must have length less than or equal to 65535]");
        return errors.ToStatus();
      }
      // Pinned by: test_legacy_parameters.py::test_attributes_to_get_refusals
      for (size_t i = 0; i < paths.size(); ++i) {
        for (size_t j = 0; j < i; ++j) {
          if (paths[i] == paths[j]) {
            return Invalid("Duplicate value in attribute name: " + paths[i][0].name);
          }
        }
      }
      in.projection = std::move(paths);
    }
  }
  return OkStatus();
}

}  // namespace ddbd::server::ops
