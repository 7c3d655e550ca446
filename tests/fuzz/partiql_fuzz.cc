// Fuzz target: the PartiQL parser (server/ops/partiql, ExecuteStatement's Statement). The
// input is the statement text; every `?` gets a parameter. Checks that any text parses or
// fails with an Error — no crash, no UB, bounded recursion — and that the expressions a parsed
// statement is translated into are valid expressions of their grammar.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "expressions/parser.h"
#include "server/ops/partiql.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ddbd;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<AttributeValue> parameters;
  for (char c : text) {
    if (c == '?') {
      parameters.push_back(AttributeValue::NumberText(std::to_string(parameters.size())));
    }
  }
  auto statement = server::ops::ParsePartiql(text, parameters);
  if (!statement.ok()) return 0;
  for (const auto& term : statement->where) {
    if (!expressions::ParseCondition(term.text, expressions::ExpressionKind::kCondition).ok()) {
      std::abort();
    }
  }
  if (!statement->update.empty() && !expressions::ParseUpdate(statement->update).ok()) {
    std::abort();
  }
  if (!statement->projection.empty() && !expressions::ParseProjection(statement->projection).ok()) {
    std::abort();
  }
  return 0;
}
