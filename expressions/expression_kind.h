// Which expression a text is (ConditionExpression, UpdateExpression, …), and the form of
// the ValidationException every semantic expression error takes.
#pragma once

#include <cstdint>
#include <string_view>

#include "model/error.h"

namespace ddbd::expressions {

enum class ExpressionKind : uint8_t {
  kCondition,
  kFilter,
  kKeyCondition,
  kProjection,
  kUpdate,
  kSearchCondition,  // SearchVectors: parsed like a condition, then narrowed by the operation
};

// "ConditionExpression", "FilterExpression", …: the prefix of DynamoDB's messages.
std::string_view ParameterName(ExpressionKind kind);

// "Invalid <P>: <detail>" — the form of every semantic expression error.
Error InvalidExpression(ExpressionKind kind, std::string_view detail);

}  // namespace ddbd::expressions
