// Fuzz target: the projection grammar (ProjectionExpression). Checks that any text parses or
// fails with an Error — no crash, no UB — and, for a parsed and bound projection without list
// indexes, that projecting is idempotent: Project(Project(item)) == Project(item). (A list
// index is not: the selected elements of a list are packed together.)
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "expressions/evaluator.h"
#include "expressions/parser.h"
#include "tests/fuzz/fuzz_values.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ddbd::expressions;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto projection = ParseProjection(text);
  if (!projection.ok()) return 0;
  Bindings bindings = ddbd::fuzz::FuzzBindings();
  if (!bindings.BindProjection(*projection).ok()) return 0;
  std::vector<ResolvedPath> paths;
  bool indexed = false;
  for (const auto& path : projection->paths) {
    paths.push_back(bindings.Resolve(path));
    for (const auto& step : paths.back()) indexed |= step.is_index();
  }
  const ddbd::Item once = Project(ddbd::fuzz::FuzzItem(), paths);
  if (!indexed && !(Project(once, paths) == once)) std::abort();
  return 0;
}
