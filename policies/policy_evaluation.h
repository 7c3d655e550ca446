// Which requests a resource-based policy explicitly denies: a Deny statement whose Principal
// names the caller ("*", the account's root, or the caller's ARN), whose Action (or
// NotAction) covers the action and whose Resource (or NotResource) covers the resource, with
// IAM's wildcards (`*`, `?`; actions compared without regard to case). Statements with a
// Condition or a NotPrincipal are not evaluated (they deny nothing here); Allow statements
// grant nothing beyond what ddbd already allows.
//
// Entry points: AccessRequest, ExplicitlyDenies.
#pragma once

#include <string_view>

namespace ddbd::policies {

struct AccessRequest {
  std::string_view principal;  // "arn:aws:iam::<account>:user/<name>"
  std::string_view action;     // "dynamodb:GetItem"
  std::string_view resource;   // the table's, index's or stream's ARN
};

// `document`: a normalized policy (NormalizePolicy's output).
bool ExplicitlyDenies(std::string_view document, const AccessRequest& request);

}  // namespace ddbd::policies
