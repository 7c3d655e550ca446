// Recursive-descent parsers for DynamoDB's five expression grammars. The result keeps
// placeholders unresolved (see ast.h); Validate* in binder.h checks them against a
// request's ExpressionAttributeNames/Values.
//
// Entry points: ParseCondition (ConditionExpression, FilterExpression,
// KeyConditionExpression), ParseUpdate, ParseProjection. Each fails with DynamoDB's
// ValidationException text: length limit, empty expression, syntax errors with token and
// context, and the checks that need no placeholder values (redundant parentheses, unknown
// or misused functions, reserved words, operand counts, operator and IN limits).
#pragma once

#include <string_view>

#include "expressions/ast.h"
#include "expressions/expression_kind.h"
#include "model/result.h"

namespace ddbd::expressions {

inline constexpr size_t kMaxExpressionBytes = 4096;
inline constexpr size_t kMaxOperators = 300;
inline constexpr size_t kMaxInOperands = 100;
// The largest list index a document path may name.
inline constexpr int64_t kMaxListIndex = 2147483647;
// Elements of one document path (a.b[1] has three): DynamoDB's limit of 32 nesting levels.
inline constexpr size_t kMaxPathLevels = 32;
// Levels of nesting (parentheses, NOT, function arguments) the parser follows before it
// refuses an expression. Within DynamoDB's 300 operators only chains of more than 200
// "NOT (" nest deeper; everything else deeper has redundant parentheses. A level costs the
// parser at most about 1.3 KB of stack, so the deepest expression needs about 520 KB.
// Pinned by: parser_test.cc ParserDepthTest (on a 1 MB stack).
inline constexpr size_t kMaxNesting = 400;

Result<Condition> ParseCondition(std::string_view text, ExpressionKind kind);
Result<UpdateExpression> ParseUpdate(std::string_view text);
Result<ProjectionExpression> ParseProjection(std::string_view text);

}  // namespace ddbd::expressions
