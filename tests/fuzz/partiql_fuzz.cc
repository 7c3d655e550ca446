// Fuzz target: the PartiQL parser (partiql/, ExecuteStatement's Statement). The input is the
// statement text; every `?` gets a parameter. Checks that any text parses or fails with an
// Error — no crash, no UB, bounded recursion — and that the trees of a parsed statement bind
// to its own names and values (or fail with an Error), evaluate against an item of every
// type, and, for an UPDATE, apply to it.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "expressions/bindings.h"
#include "expressions/evaluator.h"
#include "expressions/update.h"
#include "partiql/statement.h"
#include "tests/fuzz/fuzz_values.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ddbd;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<AttributeValue> parameters;
  for (char c : text) {
    if (c == '?') {
      parameters.push_back(AttributeValue::NumberText(std::to_string(parameters.size())));
    }
  }
  auto statement = partiql::Parse(text, parameters);
  if (!statement.ok()) return 0;
  expressions::Bindings bindings(statement->names, statement->values);
  for (const auto& term : statement->where) {
    if (!bindings.BindCondition(term.condition, expressions::ExpressionKind::kFilter).ok())
      continue;
    expressions::Matches(term.condition, fuzz::FuzzItem(), bindings);
  }
  if (statement->update && bindings.BindUpdate(*statement->update).ok()) {
    expressions::ApplyUpdate(*statement->update, bindings, fuzz::FuzzItem()).IgnoreError();
  }
  if (!statement->projection.empty()) {
    expressions::ProjectionExpression projection{statement->projection};
    if (bindings.BindProjection(projection).ok()) {
      std::vector<expressions::ResolvedPath> paths;
      for (const auto& path : projection.paths) paths.push_back(bindings.Resolve(path));
      expressions::Project(fuzz::FuzzItem(), paths);
    }
  }
  return 0;
}
