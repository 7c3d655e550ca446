// Bindings: a request's ExpressionAttributeNames and ExpressionAttributeValues, which
// placeholders of its expressions resolve against, and which of them were used.
//
// Entry points: Bind* (validates one parsed expression against the bindings: undefined
// placeholders, operand types of constant values, path overlaps), CheckAllUsed (after every
// expression of the request was bound), ResolvePath.
#pragma once

#include <map>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "expressions/ast.h"
#include "expressions/parser.h"
#include "model/attribute_value.h"
#include "model/result.h"

namespace ddbd::expressions {

// A document path with placeholders substituted: attribute/map-key names and list indexes.
struct ResolvedStep {
  std::string name;    // empty for an index
  int64_t index = -1;  // -1 for a name
  bool is_index() const { return index >= 0; }
  friend bool operator==(const ResolvedStep&, const ResolvedStep&) = default;
};
using ResolvedPath = std::vector<ResolvedStep>;

// "[a, b, [2]]": how DynamoDB prints a path in messages.
std::string PathForMessage(const ResolvedPath& path);

class Bindings {
 public:
  Bindings() = default;
  Bindings(std::map<std::string, std::string, std::less<>> names,
           std::map<std::string, AttributeValue, std::less<>> values)
      : names_(std::move(names)), values_(std::move(values)) {}

  bool has_names() const { return !names_.empty(); }
  bool has_values() const { return !values_.empty(); }

  // Substitutes #placeholders. REQUIRES: the path was bound (placeholders are defined).
  ResolvedPath Resolve(const Path& path) const;
  // The value of a :placeholder. REQUIRES: bound.
  const AttributeValue& Value(const std::string& placeholder) const;

  // Validate a parsed expression against these bindings and mark its placeholders used.
  Status BindCondition(const Condition& condition, ExpressionKind kind);
  Status BindUpdate(const UpdateExpression& update);
  Status BindProjection(const ProjectionExpression& projection);

  // "Value provided in ExpressionAttributeNames unused in expressions: keys: {#a}" etc.
  Status CheckAllUsed() const;

  // Placeholders for expressions built from legacy parameters (Expected, AttributeUpdates,
  // KeyConditions, …): each call adds a fresh, already-used placeholder.
  std::string AddGeneratedName(std::string name);
  std::string AddGeneratedValue(AttributeValue value);

 private:
  Status BindPath(const Path& path, ExpressionKind kind);
  Status BindOperand(const Operand& operand, ExpressionKind kind);
  Status CheckOperandTypes(const Condition& condition, ExpressionKind kind) const;

  std::map<std::string, std::string, std::less<>> names_;
  std::map<std::string, AttributeValue, std::less<>> values_;
  std::set<std::string, std::less<>> used_names_;
  std::set<std::string, std::less<>> used_values_;
  size_t generated_ = 0;
};

}  // namespace ddbd::expressions
