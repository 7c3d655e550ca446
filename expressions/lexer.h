// Lexer shared by the five expression grammars. Entry point: Tokenize.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/result.h"

namespace ddbd::expressions {

struct Token {
  enum class Kind : uint8_t {
    kIdentifier,        // [A-Za-z][A-Za-z0-9_]* — names, keywords and function names
    kNamePlaceholder,   // #[A-Za-z0-9_]+
    kValuePlaceholder,  // :[A-Za-z0-9_]+
    kNumber,            // [0-9]+ — list indexes
    kPunctuation,       // ( ) [ ] , . = <> < <= > >= + -
    kEnd,
  };
  Kind kind = Kind::kEnd;
  std::string_view text;  // "<EOF>" for kEnd
  size_t position = 0;
};

// Splits `source` into tokens ending with kEnd. A character no token can start with is a
// syntax error, reported like a parser error (`parameter` is e.g. "ConditionExpression").
Result<std::vector<Token>> Tokenize(std::string_view source, std::string_view parameter);

// "Invalid <parameter>: Syntax error; token: "<t>", near: "<context>"", where the context
// runs from the token before the offending one to the token after it.
Error SyntaxError(std::string_view source, std::string_view parameter,
                  const std::vector<Token>& tokens, size_t offending);

// True when `token` is the identifier `keyword`, case-insensitively.
bool IsKeyword(const Token& token, std::string_view keyword);

}  // namespace ddbd::expressions
