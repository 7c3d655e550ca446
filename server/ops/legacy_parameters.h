// DynamoDB's legacy (pre-expression) parameters — Expected, ConditionalOperator,
// AttributeUpdates, KeyConditions, QueryFilter, ScanFilter, AttributesToGet — translated into
// the same expression trees the expression parameters produce, so one evaluator serves both.
// Older SDK mappers still send them. Entry points: HasLegacyParameters, TranslateLegacy.
#pragma once

#include <string>
#include <vector>

#include "server/ops/expression_request.h"

namespace ddbd::server::ops {

// The legacy members of `body` that the operation accepts, in DynamoDB's naming.
std::vector<std::string> LegacyMembersPresent(wire::JsonObject body,
                                              const ExpressionMembers& accepted);

// Adds the trees for the legacy members to `in`, with generated placeholders in its
// bindings. REQUIRES: no expression member of the same role is present.
Status TranslateLegacy(wire::JsonObject body, const ExpressionMembers& accepted,
                       ExpressionInputs& in);

}  // namespace ddbd::server::ops
