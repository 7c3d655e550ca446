// Fuzz target: resource-based policy documents (policies/policy_document, policy_evaluation).
// Any input is either refused with a ValidationException or normalized; a normalized document
// normalizes to itself (for the target it was checked for), and evaluating it never fails.
// The first byte picks the target (table or stream).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "model/wildcard.h"
#include "policies/policy_document.h"
#include "policies/policy_evaluation.h"

using namespace ddbd;
using namespace ddbd::policies;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const PolicyTarget target = (data[0] & 1) ? PolicyTarget::kStream : PolicyTarget::kTable;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  Result<std::string> normalized = NormalizePolicy(text, target);
  if (!normalized.ok()) {
    if (normalized.error().code() != ErrorCode::kValidation) std::abort();
    return 0;
  }
  Result<std::string> again = NormalizePolicy(*normalized, target);
  if (!again.ok() || *again != *normalized) std::abort();
  ExplicitlyDenies(*normalized, {"arn:aws:iam::000000000000:user/K", "dynamodb:GetItem",
                                 "arn:aws:dynamodb:us-east-1:000000000000:table/T"});
  WildcardMatch(text.substr(0, 64), text.substr(64, 64),
                {.question_mark = (data[0] & 1) != 0, .ignore_case = (data[0] & 2) != 0});
  return 0;
}
