// Fuzz target: the condition grammar (ConditionExpression; FilterExpression shares it).
// Checks that any text parses or fails with an Error — no crash, no UB, no unbounded
// recursion — and that a parsed, bound condition evaluates against an item of every type.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "expressions/evaluator.h"
#include "expressions/parser.h"
#include "tests/fuzz/fuzz_values.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ddbd::expressions;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto condition = ParseCondition(text, ExpressionKind::kCondition);
  if (!condition.ok()) return 0;
  Bindings bindings = ddbd::fuzz::FuzzBindings();
  if (!bindings.BindCondition(*condition, ExpressionKind::kCondition).ok()) return 0;
  Matches(*condition, ddbd::fuzz::FuzzItem(), bindings);
  return 0;
}
