// IsReservedWord: whether DynamoDB reserves a word in expressions (case-insensitive).
#pragma once

#include <string_view>

namespace ddbd::expressions {

bool IsReservedWord(std::string_view word);

}  // namespace ddbd::expressions
