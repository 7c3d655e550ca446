// Legacy parameter translation.
#include "expressions/legacy.h"

#include <algorithm>
#include <span>

#include "expressions/evaluator.h"

namespace ddbd::expressions::legacy {
namespace {

Error Invalid(std::string detail) {
  return Error::Validation("One or more parameter values were invalid: " + detail);
}

// DynamoDB's text for a value outside an enum of the API model (the wire codec words the
// other constraint errors; an operator is only known to be wrong here).
Error EnumConstraint(std::string_view value, const std::string& path, std::string_view allowed) {
  return Error::Validation("1 validation error detected: Value '" + std::string(value) + "' at '" +
                           path +
                           "' failed to satisfy constraint: Member must "
                           "satisfy enum value set: " +
                           std::string(allowed));
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
  static const std::vector<T> kEquatable = {T::kS,  T::kN, T::kB, T::kSS,   T::kNS,
                                            T::kBS, T::kL, T::kM, T::kBool, T::kNull};
  static const OperatorRule kOperators[] = {
      {"EQ", 1, 1, kEquatable},
      {"NE", 1, 1, kEquatable},
      {"LE", 1, 1, kScalars},
      {"LT", 1, 1, kScalars},
      {"GE", 1, 1, kScalars},
      {"GT", 1, 1, kScalars},
      {"NOT_NULL", 0, 0, {}},
      {"NULL", 0, 0, {}},
      {"CONTAINS", 1, 1, kScalars},
      {"NOT_CONTAINS", 1, 1, kScalars},
      {"BEGINS_WITH", 1, 1, {T::kS, T::kB}},
      {"IN", 1, SIZE_MAX, kScalars},
      {"BETWEEN", 2, 2, kScalars},
  };
  for (const auto& rule : kOperators) {
    if (rule.name == op) return &rule;
  }
  return EnumConstraint(op, path + ".comparisonOperator",
                        "[IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, "
                        "BEGINS_WITH, GE, CONTAINS]");
}

class Translator {
 public:
  explicit Translator(Bindings& bindings) : bindings_(bindings) {}

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
    if (op == "BETWEEN" && ValueOrder(values[0], values[1]).value_or(0) > 0) {
      return Error::Validation(
          "The BETWEEN condition was provided a range where the lower bound "
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
    if (op == "NOT_NULL")
      c.kind = Condition::Kind::kAttributeExists;
    else if (op == "NULL")
      c.kind = Condition::Kind::kAttributeNotExists;
    else if (op == "CONTAINS" || op == "NOT_CONTAINS")
      c.kind = Condition::Kind::kContains;
    else if (op == "BEGINS_WITH")
      c.kind = Condition::Kind::kBeginsWith;
    else if (op == "IN")
      c.kind = Condition::Kind::kIn;
    else
      c.kind = Condition::Kind::kBetween;
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
  Bindings& bindings_;
};

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

}  // namespace

Result<std::optional<Condition>> TranslateExpected(std::vector<Comparison> entries, bool use_or,
                                                   Bindings& bindings) {
  Translator t(bindings);
  std::vector<Condition> conditions;
  for (Comparison& entry : entries) {
    const std::string& attribute = entry.attribute;
    const std::string path = "expected." + attribute + ".member";
    if (entry.op) DDBD_RETURN_IF_ERROR(FindOperator(*entry.op, path));
    if (entry.value && entry.has_value_list) {
      return Invalid("Value and AttributeValueList cannot be used together for Attribute: " +
                     attribute);
    }
    if (entry.op) {
      if (entry.exists) {
        return Invalid("Exists and ComparisonOperator cannot be used together for Attribute: " +
                       attribute);
      }
      if (*entry.op != "NULL" && *entry.op != "NOT_NULL" && !entry.value && !entry.has_value_list) {
        return Invalid("Value or AttributeValueList must be used with ComparisonOperator: " +
                       *entry.op + " for Attribute: " + attribute);
      }
      if (entry.value) entry.values.push_back(std::move(*entry.value));
      DDBD_ASSIGN_OR_RETURN(Condition c,
                            t.Comparison(attribute, *entry.op, std::move(entry.values), path));
      conditions.push_back(std::move(c));
      continue;
    }
    if (entry.has_value_list) {
      return Invalid(
          "AttributeValueList can only be used with a ComparisonOperator for "
          "Attribute: " +
          attribute);
    }
    const bool must_exist = entry.exists.value_or(true);
    if (must_exist && !entry.value) {
      return Invalid("Value must be provided when Exists is " +
                     std::string(entry.exists ? "true" : "null") + " for Attribute: " + attribute);
    }
    if (!must_exist && entry.value) {
      return Invalid("Value cannot be used when Exists is false for Attribute: " + attribute);
    }
    std::vector<AttributeValue> values;
    if (entry.value) values.push_back(std::move(*entry.value));
    DDBD_ASSIGN_OR_RETURN(
        Condition c, t.Comparison(attribute, must_exist ? "EQ" : "NULL", std::move(values), path));
    conditions.push_back(std::move(c));
  }
  if (conditions.empty()) return std::optional<Condition>();  // Expected: {} is no condition
  return std::optional<Condition>(Combine(conditions, use_or));
}

Result<std::optional<Condition>> TranslateComparisons(std::vector<Comparison> entries,
                                                      std::string_view member, bool use_or,
                                                      Bindings& bindings) {
  Translator t(bindings);
  std::vector<Condition> conditions;
  for (Comparison& entry : entries) {
    if (!entry.op) {
      return Error::Validation(
          "1 validation error detected: Value null at 'comparisonOperator' "
          "failed to satisfy constraint: Member must not be null");
    }
    const std::string path = std::string(member) + "." + entry.attribute + ".member";
    DDBD_ASSIGN_OR_RETURN(Condition c,
                          t.Comparison(entry.attribute, *entry.op, std::move(entry.values), path));
    conditions.push_back(std::move(c));
  }
  if (conditions.empty()) return std::optional<Condition>();  // {} is no condition
  return std::optional<Condition>(Combine(conditions, use_or));
}

Result<UpdateExpression> TranslateAttributeUpdates(std::vector<AttributeUpdate> updates,
                                                   Bindings& bindings) {
  Translator t(bindings);
  UpdateExpression update;
  for (AttributeUpdate& entry : updates) {
    const std::string& attribute = entry.attribute;
    std::optional<AttributeValue>& value = entry.value;
    const std::string_view action = entry.action ? std::string_view(*entry.action) : "PUT";
    if (action != "PUT" && action != "ADD" && action != "DELETE") {
      return EnumConstraint(action, "attributeUpdates." + attribute + ".member.action",
                            "[ADD, DELETE, PUT]");
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

}  // namespace ddbd::expressions::legacy
