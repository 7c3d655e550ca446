// The functions of DynamoDB's expression language: their names, how many arguments they
// take, whether they yield a condition or an operand, and in which expressions they may
// appear. Entry point: FindFunction.
#pragma once

#include <cstddef>
#include <string_view>

namespace ddbd::expressions {

struct FunctionInfo {
  std::string_view name;
  size_t arity;
  bool is_condition;  // yields true/false (usable as a condition, not as an operand)
  bool in_update;     // allowed in update expressions
  bool in_condition;  // allowed in condition expressions
};

// The function named `name` (case-sensitive, as DynamoDB reads it), or nullptr.
const FunctionInfo* FindFunction(std::string_view name);

}  // namespace ddbd::expressions
