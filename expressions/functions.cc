// The expression language's functions.
#include "expressions/functions.h"

namespace ddbd::expressions {
namespace {

constexpr FunctionInfo kFunctions[] = {
    {"attribute_exists", 1, true, false, true}, {"attribute_not_exists", 1, true, false, true},
    {"attribute_type", 2, true, false, true},   {"begins_with", 2, true, false, true},
    {"contains", 2, true, false, true},         {"size", 1, false, false, true},
    {"if_not_exists", 2, false, true, false},   {"list_append", 2, false, true, false},
};

}  // namespace

const FunctionInfo* FindFunction(std::string_view name) {
  for (const auto& f : kFunctions) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

}  // namespace ddbd::expressions
