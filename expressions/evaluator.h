// Evaluation of bound expressions over items: path lookup, conditions (DynamoDB's type
// rules: comparing values of different types is false, not an error), and projections.
// Entry points: Lookup, Matches, Project, ValueOrder.
#pragma once

#include <optional>
#include <vector>

#include "expressions/ast.h"
#include "expressions/bindings.h"
#include "model/attribute_value.h"

namespace ddbd::expressions {

// The value at `path` inside `item`, or nullptr when any step is missing.
const AttributeValue* Lookup(const AttributeMap& item, const ResolvedPath& path);

// DynamoDB's order of two values: defined only for two N, two S or two B values
// (numeric, then unsigned bytes); nullopt otherwise.
std::optional<int> ValueOrder(const AttributeValue& a, const AttributeValue& b);

// Whether `item` satisfies `condition`. REQUIRES: the condition was bound to `bindings`.
bool Matches(const Condition& condition, const AttributeMap& item, const Bindings& bindings);

// The parts of `item` that `paths` select, nested as in the item (ProjectionExpression).
// List elements keep their order; selected paths that do not exist are left out.
Item Project(const AttributeMap& item, const std::vector<ResolvedPath>& paths);

// Operand value for conditions (path, :value, size()); nullopt when it does not exist.
std::optional<AttributeValue> EvaluateOperand(const Operand& operand, const AttributeMap& item,
                                              const Bindings& bindings);

}  // namespace ddbd::expressions
