// Fuzz target: the update grammar (UpdateExpression). Checks that any text parses or fails
// with an Error — no crash, no UB — and that a parsed, bound update applies to an item of
// every type (or fails with an Error), leaving a result that applies again.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "expressions/parser.h"
#include "expressions/update.h"
#include "tests/fuzz/fuzz_values.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ddbd::expressions;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto update = ParseUpdate(text);
  if (!update.ok()) return 0;
  Bindings bindings = ddbd::fuzz::FuzzBindings();
  if (!bindings.BindUpdate(*update).ok()) return 0;
  auto once = ApplyUpdate(*update, bindings, ddbd::fuzz::FuzzItem());
  if (once.ok()) ApplyUpdate(*update, bindings, *once).IgnoreError();
  return 0;
}
