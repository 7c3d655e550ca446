// A process-wide cache of parsed expressions. Parsing is a pure function of the text and the
// expression kind, and applications send the same few expressions again and again, so the
// trees are shared (they are immutable; placeholders are resolved per request).
// Entry points: Parsed* (parse through the cache). Thread-safe.
#pragma once

#include <memory>
#include <string_view>

#include "expressions/ast.h"
#include "expressions/parser.h"
#include "model/result.h"

namespace ddbd::expressions {

Result<std::shared_ptr<const Condition>> ParsedCondition(std::string_view text,
                                                         ExpressionKind kind);
Result<std::shared_ptr<const UpdateExpression>> ParsedUpdate(std::string_view text);
Result<std::shared_ptr<const ProjectionExpression>> ParsedProjection(std::string_view text);

}  // namespace ddbd::expressions
