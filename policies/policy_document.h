// A resource-based policy document (PutResourcePolicy, CreateTable's ResourcePolicy) as
// DynamoDB checks and keeps it: at most 20,480 bytes, well-formed JSON with a non-empty
// Statement, each statement with Effect, Principal, Action and Resource (or their Not
// forms), unique Sids, no stream actions in a table's policy, no Allow to every principal
// without a condition. The document is kept as GetResourcePolicy returns it: minified, keys in
// IAM's order (Version, Id, Statement; Sid, Effect, Principal, Action, Resource, Condition),
// one-element lists as their element, an account id as a principal as its root ARN.
//
// Entry points: PolicyTarget, NormalizePolicy.
#pragma once

#include <string>
#include <string_view>

#include "model/result.h"

namespace ddbd::policies {

enum class PolicyTarget { kTable, kStream };

inline constexpr size_t kMaxPolicyBytes = 20480;

// The normalized document, or DynamoDB's ValidationException.
Result<std::string> NormalizePolicy(std::string_view text, PolicyTarget target);

}  // namespace ddbd::policies
