// Cursor: a position in a statement's tokens and the small steps the parsers take over them.
// Internal to partiql/.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "partiql/lexer.h"

namespace ddbd::partiql {

class Cursor {
 public:
  // REQUIRES: `tokens` ends with a kEnd token.
  explicit Cursor(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  const Token& Peek(size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  size_t position() const { return pos_; }
  void Advance(size_t count = 1) { pos_ += count; }

  // Consumes the keyword (any case) or punctuation when it is next.
  bool Keyword(std::string_view word) {
    if (Peek().kind != Token::Kind::kWord || !Equals(Peek().text, word)) return false;
    ++pos_;
    return true;
  }
  bool Punct(std::string_view text) {
    if (Peek().kind != Token::Kind::kPunct || Peek().text != text) return false;
    ++pos_;
    return true;
  }
  // Whether a function call `name(` starts here (nothing is consumed).
  bool AtCall(std::string_view name) const {
    return Peek().kind == Token::Kind::kWord && Equals(Peek().text, name) &&
           Peek(1).kind == Token::Kind::kPunct && Peek(1).text == "(";
  }

  Error Unexpected() const { return Malformed("unexpected token '" + Peek().text + "'"); }
  Status Expect(std::string_view punct) {
    if (!Punct(punct)) return Unexpected();
    return OkStatus();
  }
  Status ExpectKeyword(std::string_view word) {
    if (!Keyword(word)) return Unexpected();
    return OkStatus();
  }
  // A word or a "quoted" identifier.
  Result<std::string> Identifier() {
    const Token& token = Peek();
    if (token.kind != Token::Kind::kWord && token.kind != Token::Kind::kQuoted) return Unexpected();
    ++pos_;
    return token.text;
  }

 private:
  std::vector<Token> tokens_;
  size_t pos_ = 0;
};

}  // namespace ddbd::partiql
