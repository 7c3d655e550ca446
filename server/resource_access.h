// Resource-based policies on the request path: with --credentials, a request that a policy of
// a table it names explicitly denies to its caller is refused with AccessDeniedException
// before it runs (policies/policy_evaluation.h says which statements are evaluated).
//
// Entry points: CheckResourcePolicies, DenialOf.
#pragma once

#include <string_view>

#include "model/result.h"
#include "server/op_context.h"

namespace ddbd::server {

// OK when the caller is unknown (signatures not verified) or no policy denies the request.
Status CheckResourcePolicies(OpContext& ctx, std::string_view operation, const Request& req);

// DynamoDB's AccessDeniedException for an explicit deny of `action` on `resource`.
Error DenialOf(std::string_view caller, std::string_view action, std::string_view resource);

}  // namespace ddbd::server
