// Explicit denies of resource-based policies.
#include "policies/policy_evaluation.h"

#include <simdjson.h>

#include "model/wildcard.h"

namespace ddbd::policies {
namespace {

using simdjson::dom::element;

// IAM's wildcards: `*` and `?`.
bool IamMatch(std::string_view pattern, std::string_view text, bool ignore_case) {
  return WildcardMatch(pattern, text, {.question_mark = true, .ignore_case = ignore_case});
}

// Whether any string of `value` (a string or a list of them) matches `text`.
bool AnyMatches(element value, std::string_view text, bool ignore_case) {
  if (value.is_string()) {
    return IamMatch(value.get_string().value_unsafe(), text, ignore_case);
  }
  if (!value.is_array()) return false;
  for (element member : value.get_array()) {
    if (member.is_string() && IamMatch(member.get_string().value_unsafe(), text, ignore_case)) {
      return true;
    }
  }
  return false;
}

// The account of "arn:aws:iam::<account>:…".
std::string_view AccountOf(std::string_view principal) {
  constexpr std::string_view kIam = "arn:aws:iam::";
  if (!principal.starts_with(kIam)) return {};
  const std::string_view rest = principal.substr(kIam.size());
  return rest.substr(0, rest.find(':'));
}

bool PrincipalCovers(element principal, std::string_view caller) {
  if (principal.is_string()) return principal.get_string().value_unsafe() == "*";
  element aws;
  if (!principal.is_object() || principal["AWS"].get(aws)) return false;
  const std::string root = "arn:aws:iam::" + std::string(AccountOf(caller)) + ":root";
  return AnyMatches(aws, "*", false) || AnyMatches(aws, caller, false) ||
         AnyMatches(aws, root, false);
}

// Whether the statement's `member` (or its Not form) covers `text`; false when it has neither.
bool Covers(simdjson::dom::object statement, std::string_view member, std::string_view text,
            bool ignore_case) {
  element value;
  if (!statement[member].get(value)) return AnyMatches(value, text, ignore_case);
  if (!statement["Not" + std::string(member)].get(value)) {
    return !AnyMatches(value, text, ignore_case);
  }
  return false;
}

}  // namespace

bool ExplicitlyDenies(std::string_view document, const AccessRequest& request) {
  simdjson::dom::parser parser;
  simdjson::dom::array statements;
  simdjson::dom::element root;
  if (parser.parse(document.data(), document.size()).get(root) ||
      root["Statement"].get(statements)) {
    return false;
  }
  for (element value : statements) {
    simdjson::dom::object statement;
    std::string_view effect;
    element principal;
    if (value.get(statement) || statement["Effect"].get(effect) || effect != "Deny" ||
        !statement["Condition"].error() || statement["Principal"].get(principal)) {
      continue;
    }
    if (PrincipalCovers(principal, request.principal) &&
        Covers(statement, "Action", request.action, /*ignore_case=*/true) &&
        Covers(statement, "Resource", request.resource, /*ignore_case=*/false)) {
      return true;
    }
  }
  return false;
}

}  // namespace ddbd::policies
