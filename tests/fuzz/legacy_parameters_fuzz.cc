// Fuzz target: the legacy parameters read (server/ops/legacy_parameters) and translated
// (expressions/legacy): Expected, ConditionalOperator, AttributeUpdates, KeyConditions,
// QueryFilter, ScanFilter, AttributesToGet, reached through ReadExpressions as every
// operation reaches them. Checks that any JSON request body translates or fails with an
// Error — no crash, no UB — and that the trees it builds bind: they evaluate (and the update
// applies) against an item of every type.
#include <simdjson.h>

#include <cstddef>
#include <cstdint>

#include "expressions/evaluator.h"
#include "expressions/update.h"
#include "server/ops/expression_request.h"
#include "tests/fuzz/fuzz_values.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ddbd;
  simdjson::dom::parser parser;
  simdjson::dom::object body;
  if (parser.parse(reinterpret_cast<const char*>(data), size).get(body) != simdjson::SUCCESS) {
    return 0;
  }
  auto in = server::ops::ReadExpressions(body, {.condition = true,
                                                .filter = true,
                                                .key_condition = true,
                                                .projection = true,
                                                .update = true});
  if (!in.ok()) return 0;
  const Item& item = fuzz::FuzzItem();
  for (const auto& condition : {in->condition, in->filter, in->key_condition}) {
    if (condition) expressions::Matches(*condition, item, in->bindings);
  }
  if (in->update) expressions::ApplyUpdate(*in->update, in->bindings, item).IgnoreError();
  if (in->projection) expressions::Project(item, *in->projection);
  return 0;
}
