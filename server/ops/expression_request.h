// The expression members of a request — ConditionExpression, FilterExpression,
// KeyConditionExpression, ProjectionExpression, UpdateExpression — with the
// ExpressionAttributeNames/Values they resolve against: read, parsed, bound and checked
// the way DynamoDB checks them (empty maps, placeholder syntax, invalid values, undefined
// and unused placeholders). Entry point: ReadExpressions.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "expressions/ast.h"
#include "expressions/bindings.h"
#include "model/result.h"
#include "wire/json_reader.h"

namespace ddbd::server::ops {

// Which expression members an operation accepts.
struct ExpressionMembers {
  bool condition = false;
  bool filter = false;
  bool key_condition = false;
  bool projection = false;
  bool update = false;
  bool search_condition = false;  // SearchVectors
};

// Parsed trees are shared with the parse cache (immutable); null when the member is absent.
struct ExpressionInputs {
  expressions::Bindings bindings;
  std::shared_ptr<const expressions::Condition> condition;
  std::shared_ptr<const expressions::Condition> filter;
  std::shared_ptr<const expressions::Condition> key_condition;
  std::shared_ptr<const expressions::UpdateExpression> update;
  std::shared_ptr<const expressions::Condition> search_condition;
  std::optional<std::vector<expressions::ResolvedPath>> projection;
};

// Reads the members `accepted` lists (others are ignored, as unknown members are), and the
// legacy parameters of the same roles (Expected, AttributesToGet, …), which may not be mixed
// with expression parameters.
Result<ExpressionInputs> ReadExpressions(wire::JsonObject body, const ExpressionMembers& accepted);

}  // namespace ddbd::server::ops
