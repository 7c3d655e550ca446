// PartiQL's lexer.
#include "partiql/lexer.h"

#include <cctype>

#include "model/utf8.h"

namespace ddbd::partiql {

Error Malformed(std::string_view detail) {
  return Error::Validation("Statement wasn't well formed, can't be processed: " +
                           std::string(detail));
}

Result<std::vector<Token>> Tokenize(std::string_view in) {
  std::vector<Token> tokens;
  size_t i = 0;
  auto quoted = [&](char quote) -> Result<std::string> {
    std::string text;
    for (++i;; ++i) {
      if (i >= in.size()) return Malformed("unterminated quoted text");
      if (in[i] == quote) {
        if (i + 1 < in.size() && in[i + 1] == quote) {  // '' or "" stands for the quote itself
          text.push_back(quote);
          ++i;
          continue;
        }
        ++i;
        return text;
      }
      text.push_back(in[i]);
    }
  };
  while (i < in.size()) {
    const char c = in[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = i;
      while (i < in.size() && (std::isalnum(static_cast<unsigned char>(in[i])) || in[i] == '_'))
        ++i;
      tokens.push_back({Token::Kind::kWord, std::string(in.substr(start, i - start))});
    } else if (c == '"') {
      DDBD_ASSIGN_OR_RETURN(std::string text, quoted('"'));
      tokens.push_back({Token::Kind::kQuoted, std::move(text)});
    } else if (c == '\'') {
      DDBD_ASSIGN_OR_RETURN(std::string text, quoted('\''));
      tokens.push_back({Token::Kind::kString, std::move(text)});
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && i + 1 < in.size() &&
                std::isdigit(static_cast<unsigned char>(in[i + 1])))) {
      size_t start = i;
      while (i < in.size() &&
             (std::isalnum(static_cast<unsigned char>(in[i])) || in[i] == '.' ||
              ((in[i] == '+' || in[i] == '-') && (in[i - 1] == 'e' || in[i - 1] == 'E')))) {
        ++i;
      }
      tokens.push_back({Token::Kind::kNumber, std::string(in.substr(start, i - start))});
    } else if (c == '?') {
      tokens.push_back({Token::Kind::kParameter, "?"});
      ++i;
    } else {
      static constexpr std::string_view kTwo[] = {"<>", "!=", "<=", ">=", "<<", ">>"};
      std::string text(1, c);
      for (std::string_view two : kTwo) {
        if (in.substr(i, 2) == two) text = std::string(two);
      }
      if (text.size() == 1 &&
          std::string_view("()[]{},.:=<>*+-;").find(c) == std::string_view::npos) {
        return Malformed("unexpected character '" + std::string(Utf8CharacterAt(in, i)) + "'");
      }
      tokens.push_back({Token::Kind::kPunct, text});
      i += text.size();
    }
  }
  tokens.push_back({Token::Kind::kEnd, "<EOF>"});
  return tokens;
}

bool Equals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(a[i])) !=
        std::toupper(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace ddbd::partiql
