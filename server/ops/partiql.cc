// PartiQL statements → DynamoDB expressions.
#include "server/ops/partiql.h"

#include <algorithm>
#include <cctype>

#include "expressions/parser.h"
#include "model/number.h"

namespace ddbd::server::ops {
namespace {

struct Token {
  enum class Kind : uint8_t { kWord, kQuoted, kString, kNumber, kPunct, kParameter, kEnd };
  Kind kind = Kind::kEnd;
  std::string text;  // quoted and string tokens: their unescaped contents
};

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
      while (i < in.size() && (std::isalnum(static_cast<unsigned char>(in[i])) || in[i] == '_')) ++i;
      tokens.push_back({Token::Kind::kWord, std::string(in.substr(start, i - start))});
    } else if (c == '"') {
      DDBD_ASSIGN_OR_RETURN(std::string text, quoted('"'));
      tokens.push_back({Token::Kind::kQuoted, std::move(text)});
    } else if (c == '\'') {
      DDBD_ASSIGN_OR_RETURN(std::string text, quoted('\''));
      tokens.push_back({Token::Kind::kString, std::move(text)});
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && i + 1 < in.size() && std::isdigit(static_cast<unsigned char>(in[i + 1])))) {
      size_t start = i;
      while (i < in.size() && (std::isalnum(static_cast<unsigned char>(in[i])) || in[i] == '.' ||
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
      if (text.size() == 1 && std::string_view("()[]{},.:=<>*+-;").find(c) == std::string_view::npos) {
        return Malformed("unexpected character '" + text + "'");
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
    if (std::toupper(static_cast<unsigned char>(a[i])) != std::toupper(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

class Parser {
 public:
  Parser(std::vector<Token> tokens, const std::vector<AttributeValue>& parameters)
      : tokens_(std::move(tokens)), parameters_(parameters) {}

  Result<PartiqlStatement> Statement() {
    if (Keyword("SELECT")) {
      DDBD_RETURN_IF_ERROR(Select());
    } else if (Keyword("INSERT")) {
      DDBD_RETURN_IF_ERROR(Insert());
    } else if (Keyword("UPDATE")) {
      DDBD_RETURN_IF_ERROR(Update());
    } else if (Keyword("DELETE")) {
      DDBD_RETURN_IF_ERROR(Delete());
    } else {
      return Unexpected();
    }
    Punct(";");
    if (Peek().kind != Token::Kind::kEnd) return Unexpected();
    if (next_parameter_ != parameters_.size()) {
      return Error::Validation("Number of parameters in request and statement doesn't match.");
    }
    return std::move(out_);
  }

 private:
  const Token& Peek(size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  bool Keyword(std::string_view word) {
    if (Peek().kind == Token::Kind::kWord && Equals(Peek().text, word)) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool Punct(std::string_view text) {
    if (Peek().kind == Token::Kind::kPunct && Peek().text == text) {
      ++pos_;
      return true;
    }
    return false;
  }
  Error Unexpected() const {
    return Malformed("unexpected token '" + Peek().text + "'");
  }
  Status Expect(std::string_view punct) {
    if (!Punct(punct)) return Unexpected();
    return OkStatus();
  }
  Status ExpectKeyword(std::string_view word) {
    if (!Keyword(word)) return Unexpected();
    return OkStatus();
  }

  Result<std::string> Identifier() {
    const Token& token = Peek();
    if (token.kind != Token::Kind::kWord && token.kind != Token::Kind::kQuoted) {
      return Unexpected();
    }
    ++pos_;
    return token.text;
  }

  std::string NamePlaceholder(const std::string& name) {
    for (const auto& [placeholder, existing] : out_.names) {
      if (existing == name) return placeholder;
    }
    std::string placeholder = "#n" + std::to_string(out_.names.size());
    out_.names[placeholder] = name;
    return placeholder;
  }
  std::string ValuePlaceholder(AttributeValue value) {
    std::string placeholder = ":v" + std::to_string(out_.values.size());
    out_.values.emplace(placeholder, std::move(value));
    return placeholder;
  }

  // name ('.' name | '[' n ']')* as expression text; `first` receives the leading name.
  Result<std::string> Path(std::string* first = nullptr) {
    DDBD_ASSIGN_OR_RETURN(std::string name, Identifier());
    if (first) *first = name;
    std::string text = NamePlaceholder(name);
    // The path becomes part of an expression, so it keeps that grammar's limits.
    for (size_t levels = 1;; ++levels) {
      if (Punct(".")) {
        DDBD_ASSIGN_OR_RETURN(std::string member, Identifier());
        text += "." + NamePlaceholder(member);
      } else if (Punct("[")) {
        DDBD_ASSIGN_OR_RETURN(std::string index, ListIndex());
        text += "[" + index + "]";
        DDBD_RETURN_IF_ERROR(Expect("]"));
      } else {
        return text;
      }
      if (levels + 1 > expressions::kMaxPathLevels) {
        return Error::Validation("The document path has too many nesting levels; nesting levels: " +
                                 std::to_string(levels + 1));
      }
    }
  }

  // A list index: digits only, at most 2^31-1 (the expression grammar's bound).
  Result<std::string> ListIndex() {
    const Token& token = Peek();
    const bool digits = token.kind == Token::Kind::kNumber &&
                        std::all_of(token.text.begin(), token.text.end(),
                                    [](char c) { return c >= '0' && c <= '9'; });
    if (!digits) return Unexpected();
    if (token.text.size() > 10 || std::stoll(token.text) > expressions::kMaxListIndex) {
      return Error::Validation("List index is not within the allowable range; index: [" +
                               token.text + "]");
    }
    std::string index = token.text;
    ++pos_;
    return index;
  }

  // Counts one level of nesting while alive; deep statements are refused before they
  // could exhaust the stack.
  struct Nested {
    explicit Nested(int& depth) : depth_(depth) { ++depth_; }
    ~Nested() { --depth_; }
    int& depth_;
  };

  // A literal: 'string', number, TRUE/FALSE/NULL, ?, {map}, [list], <<set>>.
  Result<AttributeValue> Literal() {
    Nested nested(literal_depth_);
    if (literal_depth_ > kMaxNestingDepth + 1) {
      return Error::Validation("Nesting Levels have exceeded supported limits: Attributes in the "
                               "item have nested levels beyond supported limit");
    }
    const Token token = Peek();
    if (token.kind == Token::Kind::kString) {
      ++pos_;
      return AttributeValue::String(token.text);
    }
    if (token.kind == Token::Kind::kParameter) {
      ++pos_;
      if (next_parameter_ >= parameters_.size()) {
        return Error::Validation("Number of parameters in request and statement doesn't match.");
      }
      return parameters_[next_parameter_++];
    }
    if (token.kind == Token::Kind::kNumber || (token.kind == Token::Kind::kPunct && token.text == "-" &&
                                               Peek(1).kind == Token::Kind::kNumber)) {
      std::string text;
      if (token.text == "-") {
        text = "-";
        ++pos_;
      }
      text += Peek().text;
      ++pos_;
      DDBD_ASSIGN_OR_RETURN(Number number, Number::Parse(text));
      return AttributeValue::NumberText(number.ToString());
    }
    if (Keyword("TRUE")) return AttributeValue::Bool(true);
    if (Keyword("FALSE")) return AttributeValue::Bool(false);
    if (Keyword("NULL")) return AttributeValue::Null();
    if (Punct("{")) {
      AttributeMap map;
      if (!Punct("}")) {
        do {
          if (Peek().kind != Token::Kind::kString) return Unexpected();
          std::string key = Peek().text;
          ++pos_;
          DDBD_RETURN_IF_ERROR(Expect(":"));
          DDBD_ASSIGN_OR_RETURN(AttributeValue value, Literal());
          map[key] = std::move(value);
        } while (Punct(","));
        DDBD_RETURN_IF_ERROR(Expect("}"));
      }
      return AttributeValue::Map(std::move(map));
    }
    if (Punct("[")) {
      AttributeList list;
      if (!Punct("]")) {
        do {
          DDBD_ASSIGN_OR_RETURN(AttributeValue value, Literal());
          list.push_back(std::move(value));
        } while (Punct(","));
        DDBD_RETURN_IF_ERROR(Expect("]"));
      }
      return AttributeValue::List(std::move(list));
    }
    if (Punct("<<")) {
      std::vector<AttributeValue> members;
      do {
        DDBD_ASSIGN_OR_RETURN(AttributeValue value, Literal());
        members.push_back(std::move(value));
      } while (Punct(","));
      DDBD_RETURN_IF_ERROR(Expect(">>"));
      return SetOf(std::move(members));
    }
    return Unexpected();
  }

  static Result<AttributeValue> SetOf(std::vector<AttributeValue> members) {
    const AttributeType type = members.front().type();
    if (type != AttributeType::kS && type != AttributeType::kN && type != AttributeType::kB) {
      return Error::Validation("Set members must be strings, numbers or binaries");
    }
    std::vector<std::string> texts;
    for (const auto& member : members) {
      if (member.type() != type) return Error::Validation("Set members must all be of one type");
      if (std::find(texts.begin(), texts.end(), member.scalar()) != texts.end()) {
        return Error::Validation("Input collection contains duplicates");
      }
      texts.push_back(member.scalar());
    }
    const AttributeType set_type = type == AttributeType::kS   ? AttributeType::kSS
                                   : type == AttributeType::kN ? AttributeType::kNS
                                                               : AttributeType::kBS;
    return AttributeValue::Set(set_type, std::move(texts));
  }

  bool AtLiteral() const {
    const Token& token = Peek();
    return token.kind == Token::Kind::kString || token.kind == Token::Kind::kNumber ||
           token.kind == Token::Kind::kParameter ||
           (token.kind == Token::Kind::kPunct &&
            (token.text == "{" || token.text == "[" || token.text == "<<" || token.text == "-")) ||
           (token.kind == Token::Kind::kWord &&
            (Equals(token.text, "TRUE") || Equals(token.text, "FALSE") || Equals(token.text, "NULL")));
  }

  // A condition operand: a literal, a path or size(path). `simple_name` receives the name
  // when the operand is a plain top-level attribute, `value` the placeholder of a literal.
  Result<std::string> Operand(std::string* simple_name = nullptr, std::string* value = nullptr) {
    if (AtLiteral()) {
      DDBD_ASSIGN_OR_RETURN(AttributeValue literal, Literal());
      std::string placeholder = ValuePlaceholder(std::move(literal));
      if (value) *value = placeholder;
      return placeholder;
    }
    if (Peek().kind == Token::Kind::kWord && Equals(Peek().text, "size") &&
        Peek(1).kind == Token::Kind::kPunct && Peek(1).text == "(") {
      pos_ += 2;
      DDBD_ASSIGN_OR_RETURN(std::string path, Path());
      DDBD_RETURN_IF_ERROR(Expect(")"));
      return "size(" + path + ")";
    }
    const size_t start = pos_;
    std::string first;
    DDBD_ASSIGN_OR_RETURN(std::string path, Path(&first));
    if (simple_name && pos_ == start + 1) *simple_name = first;
    return path;
  }

  // One predicate (or a parenthesised condition) as a term.
  Result<PartiqlTerm> Predicate() {
    Nested nested(condition_depth_);
    if (condition_depth_ > kMaxConditionDepth) return Malformed("the condition is nested too deeply");
    PartiqlTerm term;
    if (Keyword("NOT")) {
      DDBD_ASSIGN_OR_RETURN(PartiqlTerm inner, Predicate());
      term.text = "NOT " + inner.text;
      return term;
    }
    if (Punct("(")) {
      DDBD_ASSIGN_OR_RETURN(std::string inner, Condition());
      DDBD_RETURN_IF_ERROR(Expect(")"));
      term.text = Parenthesized(std::move(inner));
      return term;
    }
    static constexpr std::string_view kFunctions[] = {"begins_with", "contains", "attribute_type"};
    for (std::string_view function : kFunctions) {
      if (Peek().kind == Token::Kind::kWord && Equals(Peek().text, function) &&
          Peek(1).kind == Token::Kind::kPunct && Peek(1).text == "(") {
        pos_ += 2;
        const size_t path_start = pos_;
        std::string name;
        DDBD_ASSIGN_OR_RETURN(std::string path, Path(&name));
        const bool simple = pos_ == path_start + 1;
        DDBD_RETURN_IF_ERROR(Expect(","));
        std::string value;
        DDBD_ASSIGN_OR_RETURN(std::string operand, Operand(nullptr, &value));
        DDBD_RETURN_IF_ERROR(Expect(")"));
        term.text = std::string(function) + "(" + path + ", " + operand + ")";
        if (function == "begins_with" && simple && !value.empty()) term.key_condition_on = name;
        return term;
      }
    }
    std::string name, value;
    DDBD_ASSIGN_OR_RETURN(std::string left, Operand(&name, &value));
    if (Keyword("IS")) {
      // Both translate into functions whose first operand must be a document path.
      const bool is_path = value.empty() && !left.starts_with("size(");
      if (!is_path) return Malformed("IS MISSING and IS NULL need an attribute path");
      const bool negated = Keyword("NOT");
      if (Keyword("MISSING")) {
        term.text = std::string(negated ? "attribute_exists(" : "attribute_not_exists(") + left + ")";
      } else if (Keyword("NULL")) {
        term.text = std::string(negated ? "NOT " : "") + "attribute_type(" + left + ", " +
                    ValuePlaceholder(AttributeValue::String("NULL")) + ")";
      } else {
        return Unexpected();
      }
      return term;
    }
    if (Keyword("BETWEEN")) {
      std::string low_value, high_value;
      DDBD_ASSIGN_OR_RETURN(std::string low, Operand(nullptr, &low_value));
      DDBD_RETURN_IF_ERROR(ExpectKeyword("AND"));
      DDBD_ASSIGN_OR_RETURN(std::string high, Operand(nullptr, &high_value));
      term.text = left + " BETWEEN " + low + " AND " + high;
      if (!name.empty() && !low_value.empty() && !high_value.empty()) term.key_condition_on = name;
      return term;
    }
    if (Keyword("IN")) {
      const bool bracket = Punct("[");
      if (!bracket) DDBD_RETURN_IF_ERROR(Expect("("));
      std::string list;
      do {
        DDBD_ASSIGN_OR_RETURN(std::string member, Operand());
        list += (list.empty() ? "" : ", ") + member;
      } while (Punct(","));
      DDBD_RETURN_IF_ERROR(Expect(bracket ? "]" : ")"));
      term.text = left + " IN (" + list + ")";
      return term;
    }
    static constexpr std::string_view kComparators[] = {"=", "<>", "!=", "<", "<=", ">", ">="};
    for (std::string_view comparator : kComparators) {
      if (!Punct(comparator)) continue;
      std::string right_name, right_value;
      DDBD_ASSIGN_OR_RETURN(std::string right, Operand(&right_name, &right_value));
      term.text = left + " " + std::string(comparator == "!=" ? "<>" : comparator) + " " + right;
      if (comparator != "<>" && comparator != "!=" && !name.empty() && !right_value.empty()) {
        term.key_condition_on = name;
      }
      if (comparator == "=") {
        if (!name.empty() && !right_value.empty()) {
          term.path = name;
          term.value = right_value;
        } else if (!right_name.empty() && !value.empty()) {
          term.path = right_name;
          term.value = value;
        }
      }
      return term;
    }
    return Unexpected();
  }

  // AND-ed predicates, as terms.
  Result<std::vector<PartiqlTerm>> Conjunction() {
    std::vector<PartiqlTerm> terms;
    do {
      DDBD_ASSIGN_OR_RETURN(PartiqlTerm term, Predicate());
      terms.push_back(std::move(term));
    } while (Keyword("AND"));
    return terms;
  }

  // `text` in one pair of parentheses: a second pair would be redundant parentheses to the
  // expression parser, so text already wrapped whole is returned as it is.
  // Pinned by: test_depth_limits.py::test_partiql_statements
  static std::string Parenthesized(std::string text) {
    int depth = 0;
    for (size_t i = 0; i < text.size(); ++i) {
      depth += text[i] == '(' ? 1 : text[i] == ')' ? -1 : 0;
      if (depth == 0) {
        if (i == 0 || i + 1 < text.size()) break;  // not wrapped whole
        return text;
      }
    }
    return "(" + text + ")";
  }

  static std::string Joined(const std::vector<PartiqlTerm>& terms) {
    std::string text;
    for (const auto& term : terms) text += (text.empty() ? "" : " AND ") + term.text;
    return text;
  }

  Result<std::string> Condition() {
    DDBD_ASSIGN_OR_RETURN(std::vector<PartiqlTerm> terms, Where());
    return Joined(terms);
  }

  // A whole condition: its AND terms, or one term when ORs join groups.
  Result<std::vector<PartiqlTerm>> Where() {
    DDBD_ASSIGN_OR_RETURN(std::vector<PartiqlTerm> first, Conjunction());
    if (!Keyword("OR")) return first;
    std::string text = Parenthesized(Joined(first));
    do {
      DDBD_ASSIGN_OR_RETURN(std::vector<PartiqlTerm> next, Conjunction());
      text += " OR " + Parenthesized(Joined(next));
    } while (Keyword("OR"));
    return std::vector<PartiqlTerm>{PartiqlTerm{text, std::nullopt, std::nullopt}};
  }

  Status TableName(bool allow_index) {
    DDBD_ASSIGN_OR_RETURN(out_.table, Identifier());
    if (allow_index && Punct(".")) {
      DDBD_ASSIGN_OR_RETURN(std::string index, Identifier());
      out_.index = std::move(index);
    }
    return OkStatus();
  }

  Status OptionalWhere() {
    if (Keyword("WHERE")) {
      DDBD_ASSIGN_OR_RETURN(out_.where, Where());
    }
    return OkStatus();
  }

  Status Select() {
    out_.kind = PartiqlStatement::Kind::kSelect;
    if (!Punct("*")) {
      do {
        DDBD_ASSIGN_OR_RETURN(std::string path, Path());
        out_.projection += (out_.projection.empty() ? "" : ", ") + path;
      } while (Punct(","));
    }
    DDBD_RETURN_IF_ERROR(ExpectKeyword("FROM"));
    DDBD_RETURN_IF_ERROR(TableName(/*allow_index=*/true));
    return OptionalWhere();
  }

  Status Insert() {
    out_.kind = PartiqlStatement::Kind::kInsert;
    DDBD_RETURN_IF_ERROR(ExpectKeyword("INTO"));
    DDBD_RETURN_IF_ERROR(TableName(/*allow_index=*/false));
    DDBD_RETURN_IF_ERROR(ExpectKeyword("VALUE"));
    DDBD_ASSIGN_OR_RETURN(AttributeValue item, Literal());
    if (item.type() != AttributeType::kM) return Malformed("VALUE must be a tuple {...}");
    out_.item = std::move(item);
    return OkStatus();
  }

  // An UPDATE's right-hand side: literal, path, list_append(a, b), if_not_exists(p, v),
  // and a + b / a - b.
  Result<std::string> SetOperand() {
    std::string left;
    if (Peek().kind == Token::Kind::kWord && Peek(1).kind == Token::Kind::kPunct &&
        Peek(1).text == "(" &&
        (Equals(Peek().text, "list_append") || Equals(Peek().text, "if_not_exists"))) {
      std::string function = Equals(Peek().text, "list_append") ? "list_append" : "if_not_exists";
      pos_ += 2;
      DDBD_ASSIGN_OR_RETURN(std::string a, SetOperand());
      DDBD_RETURN_IF_ERROR(Expect(","));
      DDBD_ASSIGN_OR_RETURN(std::string b, SetOperand());
      DDBD_RETURN_IF_ERROR(Expect(")"));
      left = function + "(" + a + ", " + b + ")";
    } else {
      DDBD_ASSIGN_OR_RETURN(left, Operand());
    }
    if (Punct("+")) {
      DDBD_ASSIGN_OR_RETURN(std::string right, Operand());
      return left + " + " + right;
    }
    if (Punct("-")) {
      DDBD_ASSIGN_OR_RETURN(std::string right, Operand());
      return left + " - " + right;
    }
    return left;
  }

  Status Update() {
    out_.kind = PartiqlStatement::Kind::kUpdate;
    DDBD_RETURN_IF_ERROR(TableName(/*allow_index=*/false));
    std::string sets, removes, adds, deletes;
    bool any = false;
    for (;;) {
      if (Keyword("SET")) {
        do {
          DDBD_ASSIGN_OR_RETURN(std::string path, Path());
          DDBD_RETURN_IF_ERROR(Expect("="));
          // set_add(path, <<…>>) / set_delete(path, <<…>>) on the assigned path are the API's
          // ADD and DELETE actions.
          std::string* set_action = nullptr;
          if (Peek().kind == Token::Kind::kWord && Peek(1).kind == Token::Kind::kPunct &&
              Peek(1).text == "(") {
            if (Equals(Peek().text, "set_add")) set_action = &adds;
            if (Equals(Peek().text, "set_delete")) set_action = &deletes;
          }
          if (set_action) {
            pos_ += 2;
            DDBD_ASSIGN_OR_RETURN(std::string target, Path());
            if (target != path) return Malformed("set_add and set_delete must name the assigned path");
            DDBD_RETURN_IF_ERROR(Expect(","));
            DDBD_ASSIGN_OR_RETURN(std::string value, Operand());
            DDBD_RETURN_IF_ERROR(Expect(")"));
            *set_action += (set_action->empty() ? "" : ", ") + path + " " + value;
            continue;
          }
          DDBD_ASSIGN_OR_RETURN(std::string value, SetOperand());
          sets += (sets.empty() ? "" : ", ") + path + " = " + value;
        } while (Punct(","));
      } else if (Keyword("REMOVE")) {
        do {
          DDBD_ASSIGN_OR_RETURN(std::string path, Path());
          removes += (removes.empty() ? "" : ", ") + path;
        } while (Punct(","));
      } else {
        break;
      }
      any = true;
    }
    if (!any) return Unexpected();
    for (const auto& [clause, actions] : {std::pair<std::string_view, const std::string*>{"SET", &sets},
                                          {"REMOVE", &removes}, {"ADD", &adds},
                                          {"DELETE", &deletes}}) {
      if (actions->empty()) continue;
      out_.update += (out_.update.empty() ? "" : " ") + std::string(clause) + " " + *actions;
    }
    DDBD_RETURN_IF_ERROR(OptionalWhere());
    return Returning({"ALL OLD", "MODIFIED OLD", "ALL NEW", "MODIFIED NEW"});
  }

  Status Delete() {
    out_.kind = PartiqlStatement::Kind::kDelete;
    DDBD_RETURN_IF_ERROR(ExpectKeyword("FROM"));
    DDBD_RETURN_IF_ERROR(TableName(/*allow_index=*/false));
    DDBD_RETURN_IF_ERROR(OptionalWhere());
    return Returning({"ALL OLD"});
  }

  // RETURNING ALL|MODIFIED OLD|NEW * → ReturnValues.
  Status Returning(std::initializer_list<std::string_view> allowed) {
    if (!Keyword("RETURNING")) return OkStatus();
    std::string which;
    if (Keyword("ALL")) which = "ALL";
    else if (Keyword("MODIFIED")) which = "MODIFIED";
    else return Unexpected();
    if (Keyword("OLD")) which += " OLD";
    else if (Keyword("NEW")) which += " NEW";
    else return Unexpected();
    DDBD_RETURN_IF_ERROR(Expect("*"));
    if (std::find(allowed.begin(), allowed.end(), std::string_view(which)) == allowed.end()) {
      return Malformed("RETURNING " + which + " * is not allowed here");
    }
    out_.returning = which == "ALL OLD"        ? "ALL_OLD"
                     : which == "ALL NEW"      ? "ALL_NEW"
                     : which == "MODIFIED OLD" ? "UPDATED_OLD"
                                               : "UPDATED_NEW";
    return OkStatus();
  }

  static constexpr int kMaxConditionDepth = 100;

  std::vector<Token> tokens_;
  int literal_depth_ = 0;
  int condition_depth_ = 0;
  const std::vector<AttributeValue>& parameters_;
  size_t pos_ = 0;
  size_t next_parameter_ = 0;
  PartiqlStatement out_;
};

}  // namespace

Result<PartiqlStatement> ParsePartiql(std::string_view statement,
                                      const std::vector<AttributeValue>& parameters) {
  DDBD_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(statement));
  Parser parser(std::move(tokens), parameters);
  return parser.Statement();
}

}  // namespace ddbd::server::ops
