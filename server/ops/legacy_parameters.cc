// Legacy parameter translation.
#include "server/ops/legacy_parameters.h"

#include <algorithm>
#include <span>

#include "expressions/evaluator.h"
#include "server/ops/common.h"
#include "server/wire/attribute_value_json.h"

namespace ddbd::server::ops {
namespace {

using expressions::Comparator;
using expressions::Condition;
using expressions::Operand;
using expressions::PathElement;

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

// What a ComparisonOperator takes: how many values, and of which types.
struct OperatorRule {
  std::string_view name;
  size_t min_args, max_args;
  std::vector<AttributeType> types;
};

// The rule of ComparisonOperator `op`, or DynamoDB's enum constraint error (operators are
// case-sensitive). `path`: the condition's envelope path ("scanFilter.a.member").
Result<const OperatorRule*> FindOperator(std::string_view op, const std::string& path) {
  using T = AttributeType;
  static const std::vector<T> kScalars = {T::kS, T::kN, T::kB};
  static const std::vector<T> kEquatable = {T::kS, T::kN, T::kB, T::kSS, T::kNS, T::kBS,
                                            T::kL, T::kM, T::kBool, T::kNull};
  static const OperatorRule kOperators[] = {
      {"EQ", 1, 1, kEquatable},         {"NE", 1, 1, kEquatable},
      {"LE", 1, 1, kScalars},           {"LT", 1, 1, kScalars},
      {"GE", 1, 1, kScalars},           {"GT", 1, 1, kScalars},
      {"NOT_NULL", 0, 0, {}},           {"NULL", 0, 0, {}},
      {"CONTAINS", 1, 1, kScalars},     {"NOT_CONTAINS", 1, 1, kScalars},
      {"BEGINS_WITH", 1, 1, {T::kS, T::kB}}, {"IN", 1, SIZE_MAX, kScalars},
      {"BETWEEN", 2, 2, kScalars},
  };
  for (const auto& rule : kOperators) {
    if (rule.name == op) return &rule;
  }
  wire::ConstraintErrors errors;
  errors.Enum(op, path + ".comparisonOperator",
              "[IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, "
              "CONTAINS]");
  return std::move(errors.ToStatus()).error();
}

class Translator {
 public:
  explicit Translator(expressions::Bindings& bindings) : bindings_(bindings) {}

  Operand PathTo(std::string attribute) {
    Operand operand;
    operand.kind = Operand::Kind::kPath;
    PathElement element;
    element.kind = PathElement::Kind::kNamePlaceholder;
    element.name = bindings_.AddGeneratedName(std::move(attribute));
    operand.path.elements.push_back(std::move(element));
    return operand;
  }

  Operand ValueOf(AttributeValue value) {
    Operand operand;
    operand.kind = Operand::Kind::kValue;
    operand.placeholder = bindings_.AddGeneratedValue(std::move(value));
    return operand;
  }

  // One ComparisonOperator condition on one attribute, with DynamoDB's checks of its values
  // in DynamoDB's order. `path` as for FindOperator.
  // Pinned by: test_legacy_parameters.py::test_legacy_condition_refusals
  Result<Condition> Comparison(const std::string& attribute, std::string_view op,
                               std::vector<AttributeValue> values, const std::string& path) {
    DDBD_ASSIGN_OR_RETURN(const OperatorRule* rule, FindOperator(op, path));
    if (values.size() < rule->min_args || values.size() > rule->max_args) {
      return Invalid("Invalid number of argument(s) for the " + std::string(op) +
                     " ComparisonOperator");
    }
    for (const auto& value : values) {
      if (value.type() != values[0].type()) {
        return Invalid("AttributeValues inside AttributeValueList must be of same type");
      }
    }
    for (const auto& value : values) {
      if (std::find(rule->types.begin(), rule->types.end(), value.type()) == rule->types.end()) {
        return Invalid("ComparisonOperator " + std::string(op) + " is not valid for " +
                       std::string(TypeName(value.type())) + " AttributeValue type");
      }
    }
    if (op == "BETWEEN" && expressions::ValueOrder(values[0], values[1]).value_or(0) > 0) {
      return Error::Validation("The BETWEEN condition was provided a range where the lower bound "
                               "is greater than the upper bound");
    }
  Condition c;
    c.operands.push_back(PathTo(attribute));
    for (auto& value : values) c.operands.push_back(ValueOf(std::move(value)));
    static constexpr std::pair<std::string_view, Comparator> kComparators[] = {
        {"EQ", Comparator::kEq}, {"NE", Comparator::kNe}, {"LE", Comparator::kLe},
        {"LT", Comparator::kLt}, {"GE", Comparator::kGe}, {"GT", Comparator::kGt},
    };
    for (const auto& [name, comparator] : kComparators) {
      if (name == op) {
        c.kind = Condition::Kind::kCompare;
        c.comparator = comparator;
        return c;
      }
    }
    if (op == "NOT_NULL") c.kind = Condition::Kind::kAttributeExists;
    else if (op == "NULL") c.kind = Condition::Kind::kAttributeNotExists;
    else if (op == "CONTAINS" || op == "NOT_CONTAINS") c.kind = Condition::Kind::kContains;
    else if (op == "BEGINS_WITH") c.kind = Condition::Kind::kBeginsWith;
    else if (op == "IN") c.kind = Condition::Kind::kIn;
    else c.kind = Condition::Kind::kBetween;
    if (op == "NOT_CONTAINS") {
      // Unlike NOT contains(...) in an expression, NOT_CONTAINS is false for a missing
      // attribute. Pinned by: test_legacy_parameters.py::test_not_contains_needs_the_attribute
      Condition negated;
      negated.kind = Condition::Kind::kNot;
      negated.children.push_back(std::move(c));
      Condition exists;
      exists.kind = Condition::Kind::kAttributeExists;
      exists.operands.push_back(PathTo(attribute));
      Condition both;
      both.kind = Condition::Kind::kAnd;
      both.children.push_back(std::move(exists));
      both.children.push_back(std::move(negated));
      return both;
    }
    return c;
  }

 private:
  expressions::Bindings& bindings_;
};

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

// Joins `conditions` with AND (or OR) into a balanced tree: a map of thousands of conditions
// nests only as deep as its logarithm, so evaluating it cannot exhaust the stack.
// Pinned by: test_depth_limits.py::test_legacy_maps_with_thousands_of_conditions
Condition Combine(std::span<Condition> conditions, bool use_or) {
  if (conditions.size() == 1) return std::move(conditions[0]);
  const size_t half = conditions.size() / 2;
  Condition node;
  node.kind = use_or ? Condition::Kind::kOr : Condition::Kind::kAnd;
  node.children.push_back(Combine(conditions.first(half), use_or));
  node.children.push_back(Combine(conditions.subspan(half), use_or));
  return node;
}

// Expected: per attribute either Value/Exists or ComparisonOperator/AttributeValueList.
// nullopt for an empty map: DynamoDB reads it as no condition.
Result<std::optional<Condition>> ExpectedCondition(wire::JsonObject expected, Translator& t,
                                                   bool use_or) {
  std::vector<Condition> conditions;
  for (auto field : expected) {
    const std::string attribute(field.key);
    DDBD_ASSIGN_OR_RETURN(wire::JsonObject spec, wire::AsObject(field.value));
    DDBD_ASSIGN_OR_RETURN(auto op, wire::GetString(spec, "ComparisonOperator"));
    DDBD_ASSIGN_OR_RETURN(auto exists, wire::GetBool(spec, "Exists"));
    std::optional<wire::JsonValue> value_json = wire::Member(spec, "Value");
    const bool has_list = wire::Member(spec, "AttributeValueList").has_value();
    const std::string path = "expected." + attribute + ".member";
    if (op) {
      DDBD_RETURN_IF_ERROR(FindOperator(*op, path));
    }
    if (value_json && has_list) {
      return Invalid("Value and AttributeValueList cannot be used together for Attribute: " +
                     attribute);
    }
    if (op) {
      if (exists) {
        return Invalid("Exists and ComparisonOperator cannot be used together for Attribute: " +
                       attribute);
      }
      if (*op != "NULL" && *op != "NOT_NULL" && !value_json && !has_list) {
        return Invalid("Value or AttributeValueList must be used with ComparisonOperator: " +
                       std::string(*op) + " for Attribute: " + attribute);
      }
      DDBD_ASSIGN_OR_RETURN(std::vector<AttributeValue> values, ReadValueList(spec));
      if (value_json) {
        DDBD_ASSIGN_OR_RETURN(AttributeValue value, wire::ParseAttributeValue(*value_json));
        values.push_back(std::move(value));
      }
      DDBD_ASSIGN_OR_RETURN(Condition c, t.Comparison(attribute, *op, std::move(values), path));
      conditions.push_back(std::move(c));
      continue;
    }
    if (has_list) {
      return Invalid("AttributeValueList can only be used with a ComparisonOperator for "
                     "Attribute: " + attribute);
    }
    const bool must_exist = exists.value_or(true);
    if (must_exist && !value_json) {
      return Invalid("Value must be provided when Exists is " +
                     std::string(exists ? "true" : "null") + " for Attribute: " + attribute);
    }
    if (!must_exist && value_json) {
      return Invalid("Value cannot be used when Exists is false for Attribute: " + attribute);
    }
    std::vector<AttributeValue> values;
    if (value_json) {
      DDBD_ASSIGN_OR_RETURN(AttributeValue value, wire::ParseAttributeValue(*value_json));
      values.push_back(std::move(value));
    }
    DDBD_ASSIGN_OR_RETURN(Condition c, t.Comparison(attribute, must_exist ? "EQ" : "NULL",
                                                    std::move(values), path));
    conditions.push_back(std::move(c));
  }
  if (conditions.empty()) return std::optional<Condition>();  // Expected: {} is no condition
  return std::optional<Condition>(Combine(conditions, use_or));
}

// KeyConditions, QueryFilter, ScanFilter: ComparisonOperator with AttributeValueList.
// nullopt for an empty map, as with Expected.
// `member`: the parameter's name as its envelope path spells it ("scanFilter").
Result<std::optional<Condition>> FilterCondition(wire::JsonObject filter, std::string_view member,
                                                 Translator& t, bool use_or) {
  std::vector<Condition> conditions;
  for (auto field : filter) {
    DDBD_ASSIGN_OR_RETURN(wire::JsonObject spec, wire::AsObject(field.value));
    DDBD_ASSIGN_OR_RETURN(auto op, wire::GetString(spec, "ComparisonOperator"));
    if (!op) {
      return Error::Validation("1 validation error detected: Value null at 'comparisonOperator' "
                               "failed to satisfy constraint: Member must not be null");
    }
    const std::string path = std::string(member) + "." + std::string(field.key) + ".member";
    DDBD_RETURN_IF_ERROR(FindOperator(*op, path));
    DDBD_ASSIGN_OR_RETURN(std::vector<AttributeValue> values, ReadValueList(spec));
    DDBD_ASSIGN_OR_RETURN(Condition c,
                          t.Comparison(std::string(field.key), *op, std::move(values), path));
    conditions.push_back(std::move(c));
  }
  if (conditions.empty()) return std::optional<Condition>();  // {} is no condition
  return std::optional<Condition>(Combine(conditions, use_or));
}

Result<expressions::UpdateExpression> UpdateFromAttributeUpdates(wire::JsonObject updates,
                                                                 Translator& t) {
  using expressions::UpdateAction;
  expressions::UpdateExpression update;
  for (auto field : updates) {
    const std::string attribute(field.key);
    DDBD_ASSIGN_OR_RETURN(wire::JsonObject spec, wire::AsObject(field.value));
    DDBD_ASSIGN_OR_RETURN(auto action_name, wire::GetString(spec, "Action"));
    std::optional<AttributeValue> value;
    if (std::optional<wire::JsonValue> json = wire::Member(spec, "Value")) {
      DDBD_ASSIGN_OR_RETURN(value, wire::ParseAttributeValue(*json));
    }
    const std::string_view action = action_name.value_or("PUT");
    if (action != "PUT" && action != "ADD" && action != "DELETE") {
      wire::ConstraintErrors errors;
      errors.Enum(action, "attributeUpdates." + attribute + ".member.action", "[ADD, DELETE, PUT]");
      return std::move(errors.ToStatus()).error();
    }
    // Pinned by: test_legacy_parameters.py::test_attribute_update_refusals
    if (value && action == "DELETE" && !value->is_set()) {
      return Invalid("DELETE action with value is not supported for the type " +
                     std::string(TypeName(value->type())));
    }
    if (value && action == "ADD" && !value->is_set() && value->type() != AttributeType::kN &&
        value->type() != AttributeType::kL) {
      return Invalid("ADD action is not supported for the type " +
                     std::string(TypeName(value->type())));
    }
    UpdateAction out;
    out.path = t.PathTo(attribute).path;
    if (action == "DELETE") {
      out.kind = value ? UpdateAction::Kind::kDelete : UpdateAction::Kind::kRemove;
      if (value) out.value = t.ValueOf(std::move(*value));
    } else if (!value) {
      return Invalid("Only DELETE action is allowed when no attribute value is specified");
    } else if (action == "ADD" && value->type() == AttributeType::kL) {
      // Legacy ADD appends to a list (creating it when missing).
      out.kind = UpdateAction::Kind::kSet;
      Operand existing;
      existing.kind = Operand::Kind::kIfNotExists;
      existing.args.push_back(t.PathTo(attribute));
      existing.args.push_back(t.ValueOf(AttributeValue::List({})));
      out.value.kind = Operand::Kind::kListAppend;
      out.value.args.push_back(std::move(existing));
      out.value.args.push_back(t.ValueOf(std::move(*value)));
    } else {
      out.kind = action == "ADD" ? UpdateAction::Kind::kAdd : UpdateAction::Kind::kSet;
      out.value = t.ValueOf(std::move(*value));
    }
    update.actions.push_back(std::move(out));
  }
  return update;
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
  Translator t(in.bindings);
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(auto conditional_operator,
                        ReadEnum(body, "ConditionalOperator", "conditionalOperator", {"AND", "OR"},
                                 errors));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  const bool use_or = conditional_operator == "OR";
  if (conditional_operator && !wire::Member(body, "Expected") && !wire::Member(body, "QueryFilter") &&
      !wire::Member(body, "ScanFilter")) {
    return Error::Validation("ConditionalOperator cannot be used without Filter or Expected");
  }
  if (accepted.condition) {
    DDBD_ASSIGN_OR_RETURN(auto expected, wire::GetObject(body, "Expected"));
    if (expected) {
      DDBD_ASSIGN_OR_RETURN(auto condition, ExpectedCondition(*expected, t, use_or));
      if (condition) in.condition = std::make_shared<const Condition>(std::move(*condition));
    }
  }
  if (accepted.filter) {
    for (std::string_view member : {"QueryFilter", "ScanFilter"}) {
      DDBD_ASSIGN_OR_RETURN(auto filter, wire::GetObject(body, member));
      if (filter) {
        const std::string path = member == "QueryFilter" ? "queryFilter" : "scanFilter";
        DDBD_ASSIGN_OR_RETURN(auto condition, FilterCondition(*filter, path, t, use_or));
        if (condition) in.filter = std::make_shared<const Condition>(std::move(*condition));
      }
    }
  }
  if (accepted.key_condition) {
    DDBD_ASSIGN_OR_RETURN(auto key_conditions, wire::GetObject(body, "KeyConditions"));
    if (key_conditions) {
      DDBD_ASSIGN_OR_RETURN(auto condition,
                            FilterCondition(*key_conditions, "keyConditions", t, false));
      if (condition) in.key_condition = std::make_shared<const Condition>(std::move(*condition));
    }
  }
  if (accepted.update) {
    DDBD_ASSIGN_OR_RETURN(auto updates, wire::GetObject(body, "AttributeUpdates"));
    if (updates) {
      DDBD_ASSIGN_OR_RETURN(auto update, UpdateFromAttributeUpdates(*updates, t));
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
        return Error::Validation("1 validation error detected: Value '[]' at 'attributesToGet' "
                                 "failed to satisfy constraint: Member must have length greater "
                                 "than or equal to 1");
      }
      if (paths.size() > kMaxAttributesToGet) {
        return Error::Validation("1 validation error detected: Value '[...]' at 'attributesToGet' "
                                 "failed to satisfy constraint: Member must have length less than "
                                 "or equal to 255");
      }
      // Pinned by: test_legacy_parameters.py::test_attributes_to_get_names_are_at_most_65535_characters
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
