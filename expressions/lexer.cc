// Tokenizer and DynamoDB's syntax-error message.
#include "expressions/lexer.h"

#include <algorithm>
#include <cctype>

#include "model/utf8.h"

namespace ddbd::expressions {
namespace {

bool IsLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsWordChar(char c) { return IsLetter(c) || IsDigit(c) || c == '_'; }
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The end of the UTF-8 character starting at `start` (its continuation bytes included), so
// messages never cut a character in half.
size_t CharEnd(std::string_view source, size_t start) {
  return start + std::max<size_t>(1, Utf8SequenceLength(source, start));
}

size_t WordEnd(std::string_view source, size_t start) {
  size_t end = start;
  while (end < source.size() && IsWordChar(source[end])) ++end;
  return end;
}

}  // namespace

bool IsKeyword(const Token& token, std::string_view keyword) {
  if (token.kind != Token::Kind::kIdentifier || token.text.size() != keyword.size()) return false;
  for (size_t i = 0; i < keyword.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(token.text[i])) != keyword[i]) return false;
  }
  return true;
}

Error SyntaxError(std::string_view source, std::string_view parameter,
                  const std::vector<Token>& tokens, size_t offending) {
  const Token& token = tokens[offending];
  size_t begin = offending > 0 ? tokens[offending - 1].position : token.position;
  size_t end = token.kind == Token::Kind::kEnd ? source.size() : token.position + token.text.size();
  if (offending + 1 < tokens.size() && tokens[offending + 1].kind != Token::Kind::kEnd) {
    end = tokens[offending + 1].position + tokens[offending + 1].text.size();
  }
  return Error::Validation("Invalid " + std::string(parameter) + ": Syntax error; token: \"" +
                           std::string(token.text) + "\", near: \"" +
                           std::string(source.substr(begin, end - begin)) + "\"");
}

Result<std::vector<Token>> Tokenize(std::string_view source, std::string_view parameter) {
  std::vector<Token> tokens;
  size_t i = 0;
  while (true) {
    while (i < source.size() && IsSpace(source[i])) ++i;
    if (i == source.size()) break;
    const char c = source[i];
    Token token;
    token.position = i;
    size_t end = i + 1;
    if (IsLetter(c)) {
      token.kind = Token::Kind::kIdentifier;
      end = WordEnd(source, i);
    } else if ((c == '#' || c == ':') && i + 1 < source.size() && IsWordChar(source[i + 1])) {
      token.kind = c == '#' ? Token::Kind::kNamePlaceholder : Token::Kind::kValuePlaceholder;
      end = WordEnd(source, i + 1);
    } else if (IsDigit(c)) {
      token.kind = Token::Kind::kNumber;
      while (end < source.size() && IsDigit(source[end])) ++end;
    } else if ((c == '<' || c == '>') && i + 1 < source.size() &&
               (source[i + 1] == '=' || (c == '<' && source[i + 1] == '>'))) {
      token.kind = Token::Kind::kPunctuation;
      end = i + 2;
    } else if (std::string_view("()[],.=<>+-").find(c) != std::string_view::npos) {
      token.kind = Token::Kind::kPunctuation;
    } else {
      // A character no token starts with: report it as DynamoDB does, with the next word.
      token.kind = Token::Kind::kPunctuation;
      token.text = source.substr(i, CharEnd(source, i) - i);
      tokens.push_back(token);
      size_t next = i + token.text.size();
      while (next < source.size() && IsSpace(source[next])) ++next;
      if (next < source.size()) {
        size_t next_end = IsWordChar(source[next]) ? WordEnd(source, next) : CharEnd(source, next);
        tokens.push_back(
            Token{Token::Kind::kIdentifier, source.substr(next, next_end - next), next});
      }
      return SyntaxError(source, parameter, tokens, tokens.size() - (next < source.size() ? 2 : 1));
    }
    token.text = source.substr(i, end - i);
    tokens.push_back(token);
    i = end;
  }
  tokens.push_back(Token{Token::Kind::kEnd, "<EOF>", source.size()});
  return tokens;
}

}  // namespace ddbd::expressions
