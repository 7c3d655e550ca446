#include "expressions/expression_kind.h"

#include <string>

namespace ddbd::expressions {

std::string_view ParameterName(ExpressionKind kind) {
  switch (kind) {
    case ExpressionKind::kCondition:
      return "ConditionExpression";
    case ExpressionKind::kFilter:
      return "FilterExpression";
    case ExpressionKind::kKeyCondition:
      return "KeyConditionExpression";
    case ExpressionKind::kProjection:
      return "ProjectionExpression";
    case ExpressionKind::kUpdate:
      return "UpdateExpression";
    case ExpressionKind::kSearchCondition:
      return "SearchConditionExpression";
  }
  return "Expression";
}

Error InvalidExpression(ExpressionKind kind, std::string_view detail) {
  return Error::Validation("Invalid " + std::string(ParameterName(kind)) + ": " +
                           std::string(detail));
}

}  // namespace ddbd::expressions
