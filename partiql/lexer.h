// PartiQL's tokens: words, "quoted identifiers", 'strings', numbers, punctuation and `?`
// parameters. Entry points: Tokenize, Malformed, Equals.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.h"

namespace ddbd::partiql {

struct Token {
  enum class Kind : uint8_t { kWord, kQuoted, kString, kNumber, kPunct, kParameter, kEnd };
  Kind kind = Kind::kEnd;
  std::string text;  // quoted and string tokens: their unescaped contents
};

// DynamoDB's error for a statement that does not parse, with what went wrong.
Error Malformed(std::string_view detail);

// The tokens of `in`, ending with a kEnd token ("<EOF>").
Result<std::vector<Token>> Tokenize(std::string_view in);

// Case-insensitive equality (keywords and function names).
bool Equals(std::string_view a, std::string_view b);

}  // namespace ddbd::partiql
