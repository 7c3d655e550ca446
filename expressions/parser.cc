// Expression parsers. Syntax errors stop parsing at once; semantic problems found while
// parsing are recorded by category and the most important one is reported at the end, in
// the order DynamoDB reports them (parentheses, functions, reserved words, operands).
#include "expressions/parser.h"

#include <array>
#include <bitset>
#include <optional>

#include "expressions/functions.h"
#include "expressions/lexer.h"
#include "expressions/reserved_words.h"

namespace ddbd::expressions {
namespace {

// Semantic error categories, most important first.
enum Problem : size_t {
  kRedundantParentheses,
  kUnknownFunction,
  kMisusedFunction,
  kReservedWord,
  kOperandCount,
  kDocumentPathRequired,
  kProblemCount,
};

// A parsed function call before it is known whether it is a condition or an operand.
struct Call {
  std::string name;
  std::vector<Operand> args;
  size_t position = 0;
};

class Parser {
 public:
  Parser(std::string_view source, ExpressionKind kind, std::vector<Token> tokens)
      : source_(source), kind_(kind), tokens_(std::move(tokens)) {}

  Result<Condition> Condition_() {
    DDBD_ASSIGN_OR_RETURN(Condition condition, Or());
    DDBD_RETURN_IF_ERROR(ExpectEnd());
    DDBD_RETURN_IF_ERROR(Finish());
    return condition;
  }

  Result<UpdateExpression> Update() {
    UpdateExpression update;
    std::array<bool, 4> seen{};
    while (Peek().kind != Token::Kind::kEnd) {
      std::optional<UpdateAction::Kind> clause = ClauseKeyword(Peek());
      if (!clause) return Syntax();
      const std::string keyword = Upper(Peek().text);
      Next();
      if (seen[static_cast<size_t>(*clause)]) {
        return InvalidExpression(kind_, "The \"" + keyword +
                                            "\" section can only be used once in an update "
                                            "expression;");
      }
      seen[static_cast<size_t>(*clause)] = true;
      do {
        DDBD_ASSIGN_OR_RETURN(UpdateAction action, Action(*clause));
        update.actions.push_back(std::move(action));
      } while (Accept(","));
    }
    if (update.actions.empty()) return Syntax();
    DDBD_RETURN_IF_ERROR(Finish());
    return update;
  }

  Result<ProjectionExpression> Projection() {
    ProjectionExpression projection;
    do {
      DDBD_ASSIGN_OR_RETURN(Path path, DocumentPath());
      projection.paths.push_back(std::move(path));
    } while (Accept(","));
    DDBD_RETURN_IF_ERROR(ExpectEnd());
    DDBD_RETURN_IF_ERROR(Finish());
    return projection;
  }

 private:
  // --- token helpers ---
  const Token& Peek(size_t ahead = 0) const {
    return tokens_[std::min(index_ + ahead, tokens_.size() - 1)];
  }
  void Next() {
    if (index_ + 1 < tokens_.size()) ++index_;
  }
  bool IsPunct(const Token& t, std::string_view p) const {
    return t.kind == Token::Kind::kPunctuation && t.text == p;
  }
  bool Accept(std::string_view p) {
    if (!IsPunct(Peek(), p)) return false;
    Next();
    return true;
  }
  Status Expect(std::string_view p) {
    if (!Accept(p)) return Syntax();
    return OkStatus();
  }
  Status ExpectEnd() {
    if (Peek().kind != Token::Kind::kEnd) return Syntax();
    return OkStatus();
  }
  Error Syntax() const { return SyntaxError(source_, ParameterName(kind_), tokens_, index_); }
  static std::string Upper(std::string_view text) {
    std::string out(text);
    for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return out;
  }
  static std::optional<UpdateAction::Kind> ClauseKeyword(const Token& t) {
    if (IsKeyword(t, "SET")) return UpdateAction::Kind::kSet;
    if (IsKeyword(t, "REMOVE")) return UpdateAction::Kind::kRemove;
    if (IsKeyword(t, "ADD")) return UpdateAction::Kind::kAdd;
    if (IsKeyword(t, "DELETE")) return UpdateAction::Kind::kDelete;
    return std::nullopt;
  }
  bool AtLogicalKeyword() const {
    const Token& t = Peek();
    return IsKeyword(t, "AND") || IsKeyword(t, "OR") || IsKeyword(t, "NOT") ||
           IsKeyword(t, "BETWEEN") || IsKeyword(t, "IN");
  }

  void Report(Problem problem, std::string message) {
    if (!problems_[problem]) problems_[problem] = std::move(message);
  }
  Status Finish() {
    if (operators_ > kMaxOperators) {
      return InvalidExpression(kind_,
                               "The expression contains too many operators; operator "
                               "count: " +
                                   std::to_string(operators_));
    }
    for (const auto& problem : problems_) {
      if (problem) return InvalidExpression(kind_, *problem);
    }
    return OkStatus();
  }

  // --- conditions ---
  // OR over AND chains, in one function so that a level of parentheses costs one frame less
  // of stack (the parser's depth is bounded by kMaxNesting). Both associate to the left.
  Result<Condition> Or() {
    std::optional<Condition> disjunction;  // the terms ORed so far
    while (true) {
      DDBD_ASSIGN_OR_RETURN(Condition conjunction, Not());
      while (IsKeyword(Peek(), "AND")) {
        Next();
        ++operators_;
        DDBD_ASSIGN_OR_RETURN(Condition right, Not());
        conjunction = Binary(Condition::Kind::kAnd, std::move(conjunction), std::move(right));
      }
      disjunction = disjunction ? Binary(Condition::Kind::kOr, std::move(*disjunction),
                                         std::move(conjunction))
                                : std::move(conjunction);
      if (!IsKeyword(Peek(), "OR")) return std::move(*disjunction);
      Next();
      ++operators_;
    }
  }

  static Condition Binary(Condition::Kind kind, Condition left, Condition right) {
    Condition node;
    node.kind = kind;
    node.children.push_back(std::move(left));
    node.children.push_back(std::move(right));
    return node;
  }

  Result<Condition> Not() {
    if (IsKeyword(Peek(), "NOT")) {
      Nested nested(*this);
      if (nested.too_deep()) return TooDeep();
      Next();
      ++operators_;
      DDBD_ASSIGN_OR_RETURN(Condition child, Not());
      Condition node;
      node.kind = Condition::Kind::kNot;
      node.children.push_back(std::move(child));
      return node;
    }
    return Primary();
  }

  // Counts one level of nesting for as long as it lives; the parser's recursion is bounded by
  // kMaxNesting so that no expression can exhaust the stack.
  class Nested {
   public:
    explicit Nested(Parser& parser) : parser_(parser) { ++parser_.depth_; }
    ~Nested() { --parser_.depth_; }
    Nested(const Nested&) = delete;
    Nested& operator=(const Nested&) = delete;
    bool too_deep() const { return parser_.depth_ > kMaxNesting; }

   private:
    Parser& parser_;
  };

  // What an expression nested past kMaxNesting is told. No valid expression nests that deep:
  // within DynamoDB's operator limit, such nesting needs redundant parentheses.
  Error TooDeep() {
    size_t operators = 0;
    for (const Token& t : tokens_) {
      operators += IsKeyword(t, "AND") || IsKeyword(t, "OR") || IsKeyword(t, "NOT") ||
                   IsKeyword(t, "BETWEEN") || IsKeyword(t, "IN") ||
                   (t.kind == Token::Kind::kPunctuation &&
                    (t.text == "=" || t.text == "<>" || t.text == "<" || t.text == "<=" ||
                     t.text == ">" || t.text == ">=" || t.text == "+" || t.text == "-"));
    }
    if (operators > kMaxOperators) {
      return InvalidExpression(kind_,
                               "The expression contains too many operators; operator "
                               "count: " +
                                   std::to_string(operators));
    }
    return InvalidExpression(kind_, "The expression has redundant parentheses;");
  }

  Result<Condition> Primary() {
    Nested nested(*this);
    if (nested.too_deep()) return TooDeep();
    if (IsPunct(Peek(), "(")) {
      // "(b) = :v": a parenthesised operand that a comparison follows, or else a
      // parenthesised condition. Tried in that order, the first attempt undone if it fails.
      const size_t start = index_;
      const size_t operators = operators_;
      std::bitset<kProblemCount> reported;
      for (size_t i = 0; i < kProblemCount; ++i) reported[i] = problems_[i].has_value();
      Result<Operand> operand = OperandExpr();
      if (operand.ok() && IsComparisonAhead()) return Comparison(std::move(operand).value());
      index_ = start;
      operators_ = operators;
      for (size_t i = 0; i < kProblemCount; ++i) {
        if (!reported[i]) problems_[i].reset();
      }
    }
    if (Accept("(")) {
      DDBD_ASSIGN_OR_RETURN(Condition inner, Or());
      DDBD_RETURN_IF_ERROR(Expect(")"));
      if (inner.parenthesized)
        Report(kRedundantParentheses, "The expression has redundant parentheses;");
      inner.parenthesized = true;
      return inner;
    }
    if (Peek().kind == Token::Kind::kIdentifier && IsPunct(Peek(1), "(")) {
      DDBD_ASSIGN_OR_RETURN(Call call, FunctionCall());
      if (!IsComparisonAhead()) return ConditionFromCall(std::move(call));
      DDBD_ASSIGN_OR_RETURN(Operand left, OperandFromCall(std::move(call)));
      return Comparison(std::move(left));
    }
    DDBD_ASSIGN_OR_RETURN(Operand left, OperandExpr());
    return Comparison(std::move(left));
  }

  bool IsComparisonAhead() const {
    const Token& t = Peek();
    return (t.kind == Token::Kind::kPunctuation &&
            (t.text == "=" || t.text == "<>" || t.text == "<" || t.text == "<=" || t.text == ">" ||
             t.text == ">=")) ||
           IsKeyword(t, "BETWEEN") || IsKeyword(t, "IN");
  }

  Result<Condition> Comparison(Operand left) {
    Condition node;
    const Token& t = Peek();
    if (IsKeyword(t, "BETWEEN")) {
      Next();
      ++operators_;
      node.kind = Condition::Kind::kBetween;
      node.operands.push_back(std::move(left));
      DDBD_ASSIGN_OR_RETURN(Operand low, OperandExpr());
      if (!IsKeyword(Peek(), "AND")) return Syntax();
      Next();
      DDBD_ASSIGN_OR_RETURN(Operand high, OperandExpr());
      node.operands.push_back(std::move(low));
      node.operands.push_back(std::move(high));
      return node;
    }
    if (IsKeyword(t, "IN")) {
      Next();
      ++operators_;
      node.kind = Condition::Kind::kIn;
      node.operands.push_back(std::move(left));
      DDBD_RETURN_IF_ERROR(Expect("("));
      do {
        DDBD_ASSIGN_OR_RETURN(Operand candidate, OperandExpr());
        node.operands.push_back(std::move(candidate));
      } while (Accept(","));
      DDBD_RETURN_IF_ERROR(Expect(")"));
      if (node.operands.size() - 1 > kMaxInOperands) {
        return InvalidExpression(kind_,
                                 "The IN operator is provided with too many operands; "
                                 "number of operands: " +
                                     std::to_string(node.operands.size() - 1));
      }
      return node;
    }
    static constexpr std::pair<std::string_view, Comparator> kComparators[] = {
        {"=", Comparator::kEq},  {"<>", Comparator::kNe}, {"<", Comparator::kLt},
        {"<=", Comparator::kLe}, {">", Comparator::kGt},  {">=", Comparator::kGe},
    };
    for (const auto& [text, comparator] : kComparators) {
      if (IsPunct(t, text)) {
        Next();
        ++operators_;
        node.kind = Condition::Kind::kCompare;
        node.comparator = comparator;
        node.operands.push_back(std::move(left));
        DDBD_ASSIGN_OR_RETURN(Operand right, OperandExpr());
        node.operands.push_back(std::move(right));
        return node;
      }
    }
    return Syntax();
  }

  Result<Call> FunctionCall() {
    Call call;
    call.name = std::string(Peek().text);
    call.position = Peek().position;
    Next();
    DDBD_RETURN_IF_ERROR(Expect("("));
    do {
      DDBD_ASSIGN_OR_RETURN(Operand arg,
                            kind_ == ExpressionKind::kUpdate ? UpdateOperand() : OperandExpr());
      call.args.push_back(std::move(arg));
    } while (Accept(","));
    DDBD_RETURN_IF_ERROR(Expect(")"));
    const FunctionInfo* info = FindFunction(call.name);
    const bool allowed =
        info && (kind_ == ExpressionKind::kUpdate ? info->in_update : info->in_condition);
    if (!info || (!allowed && kind_ != ExpressionKind::kUpdate)) {
      Report(kUnknownFunction, "Invalid function name; function: " + call.name);
    } else if (!allowed) {
      Report(kUnknownFunction,
             "The function is not allowed in an update expression; function: " + call.name);
    } else if (call.args.size() != info->arity) {
      Report(kOperandCount,
             "Incorrect number of operands for operator or function; operator or "
             "function: " +
                 call.name + ", number of operands: " + std::to_string(call.args.size()));
    }
    return call;
  }

  Result<Condition> ConditionFromCall(Call call) {
    const FunctionInfo* info = FindFunction(call.name);
    if (info && !info->is_condition) {
      Report(kMisusedFunction,
             "The function is not allowed to be used this way in an "
             "expression; function: " +
                 call.name);
    }
    Condition node;
    if (call.name == "attribute_exists")
      node.kind = Condition::Kind::kAttributeExists;
    else if (call.name == "attribute_not_exists")
      node.kind = Condition::Kind::kAttributeNotExists;
    else if (call.name == "attribute_type")
      node.kind = Condition::Kind::kAttributeType;
    else if (call.name == "begins_with")
      node.kind = Condition::Kind::kBeginsWith;
    else
      node.kind = Condition::Kind::kContains;
    if ((node.kind == Condition::Kind::kAttributeExists ||
         node.kind == Condition::Kind::kAttributeNotExists) &&
        !call.args.empty() && call.args[0].kind != Operand::Kind::kPath) {
      Report(kDocumentPathRequired,
             "Operator or function requires a document path; operator "
             "or function: " +
                 call.name);
    }
    node.operands = std::move(call.args);
    return node;
  }

  Result<Operand> OperandFromCall(Call call) {
    const FunctionInfo* info = FindFunction(call.name);
    Operand operand;
    operand.position = call.position;
    if (info && info->is_condition) {
      Report(kMisusedFunction,
             "The function is not allowed to be used this way in an "
             "expression; function: " +
                 call.name);
    }
    if (call.name == "if_not_exists") {
      operand.kind = Operand::Kind::kIfNotExists;
      if (!call.args.empty() && call.args[0].kind != Operand::Kind::kPath) {
        Report(kDocumentPathRequired,
               "Operator or function requires a document path; operator "
               "or function: if_not_exists");
      }
    } else if (call.name == "list_append") {
      operand.kind = Operand::Kind::kListAppend;
    } else {
      operand.kind = Operand::Kind::kSize;
    }
    operand.args = std::move(call.args);
    return operand;
  }

  // An operand of a condition: a path, a :value or size(...), possibly in parentheses (one
  // pair; a second is redundant).
  Result<Operand> OperandExpr() {
    Nested nested(*this);
    if (nested.too_deep()) return TooDeep();
    if (Accept("(")) {
      DDBD_ASSIGN_OR_RETURN(Operand inner, OperandExpr());
      DDBD_RETURN_IF_ERROR(Expect(")"));
      if (inner.parenthesized)
        Report(kRedundantParentheses, "The expression has redundant parentheses;");
      inner.parenthesized = true;
      return inner;
    }
    const Token& t = Peek();
    if (t.kind == Token::Kind::kValuePlaceholder) {
      Operand operand;
      operand.kind = Operand::Kind::kValue;
      operand.placeholder = std::string(t.text);
      operand.position = t.position;
      Next();
      return operand;
    }
    if (t.kind == Token::Kind::kIdentifier && IsPunct(Peek(1), "(") && !AtLogicalKeyword()) {
      DDBD_ASSIGN_OR_RETURN(Call call, FunctionCall());
      return OperandFromCall(std::move(call));
    }
    Operand operand;
    operand.position = t.position;
    DDBD_ASSIGN_OR_RETURN(operand.path, DocumentPath());
    return operand;
  }

  Result<Path> DocumentPath() {
    Path path;
    DDBD_ASSIGN_OR_RETURN(PathElement first, PathName());
    path.elements.push_back(std::move(first));
    while (true) {
      if (Accept(".")) {
        DDBD_ASSIGN_OR_RETURN(PathElement element, PathName());
        path.elements.push_back(std::move(element));
      } else if (Accept("[")) {
        const Token& t = Peek();
        if (t.kind != Token::Kind::kNumber) return Syntax();
        PathElement element;
        element.kind = PathElement::Kind::kIndex;
        // Unverified bound (a 32-bit signed index). Pinned by:
        // test_expression_errors.py (projection-index-range)
        if (t.text.size() > 10 || std::stoll(std::string(t.text)) > kMaxListIndex) {
          return InvalidExpression(kind_,
                                   "List index is not within the allowable range; index: "
                                   "[" +
                                       std::string(t.text) + "]");
        }
        element.index = std::stoll(std::string(t.text));
        path.elements.push_back(std::move(element));
        Next();
        DDBD_RETURN_IF_ERROR(Expect("]"));
      } else {
        break;
      }
    }
    // Pinned by: test_depth_limits.py (projection paths of 10, 1,000 and 100,000 levels)
    if (path.elements.size() > kMaxPathLevels) {
      return InvalidExpression(kind_,
                               "The document path has too many nesting levels; nesting "
                               "levels: " +
                                   std::to_string(path.elements.size()));
    }
    return path;
  }

  Result<PathElement> PathName() {
    const Token& t = Peek();
    PathElement element;
    if (t.kind == Token::Kind::kNamePlaceholder) {
      element.kind = PathElement::Kind::kNamePlaceholder;
    } else if (t.kind == Token::Kind::kIdentifier && !AtLogicalKeyword()) {
      element.kind = PathElement::Kind::kName;
      if (IsReservedWord(t.text)) {
        Report(kReservedWord,
               "Attribute name is a reserved keyword; reserved keyword: " + std::string(t.text));
      }
    } else {
      return Syntax();
    }
    element.name = std::string(t.text);
    Next();
    return element;
  }

  // --- updates ---
  Result<UpdateAction> Action(UpdateAction::Kind clause) {
    UpdateAction action;
    action.kind = clause;
    DDBD_ASSIGN_OR_RETURN(action.path, DocumentPath());
    switch (clause) {
      case UpdateAction::Kind::kSet: {
        DDBD_RETURN_IF_ERROR(Expect("="));
        DDBD_ASSIGN_OR_RETURN(action.value, SetValue());
        break;
      }
      case UpdateAction::Kind::kRemove:
        break;
      case UpdateAction::Kind::kAdd:
      case UpdateAction::Kind::kDelete: {
        const Token& t = Peek();
        if (t.kind != Token::Kind::kValuePlaceholder) return Syntax();
        action.value.kind = Operand::Kind::kValue;
        action.value.placeholder = std::string(t.text);
        action.value.position = t.position;
        Next();
        break;
      }
    }
    return action;
  }

  Result<Operand> SetValue() {
    DDBD_ASSIGN_OR_RETURN(Operand left, UpdateOperand());
    const Token& t = Peek();
    if (IsPunct(t, "+") || IsPunct(t, "-")) {
      Operand node;
      node.kind = t.text == "+" ? Operand::Kind::kPlus : Operand::Kind::kMinus;
      node.position = t.position;
      Next();
      ++operators_;
      DDBD_ASSIGN_OR_RETURN(Operand right, UpdateOperand());
      node.args.push_back(std::move(left));
      node.args.push_back(std::move(right));
      return node;
    }
    return left;
  }

  Result<Operand> UpdateOperand() {
    Nested nested(*this);
    if (nested.too_deep()) return TooDeep();
    if (Accept("(")) {
      DDBD_ASSIGN_OR_RETURN(Operand inner, SetValue());
      DDBD_RETURN_IF_ERROR(Expect(")"));
      return inner;
    }
    return OperandExpr();
  }

  std::string_view source_;
  ExpressionKind kind_;
  std::vector<Token> tokens_;
  size_t index_ = 0;
  size_t operators_ = 0;
  size_t depth_ = 0;  // levels of nesting being parsed (Nested)
  std::array<std::optional<std::string>, kProblemCount> problems_;
};

Result<std::vector<Token>> Prepare(std::string_view text, ExpressionKind kind) {
  if (text.size() > kMaxExpressionBytes) {
    return InvalidExpression(kind,
                             "Expression size has exceeded the maximum allowed size; "
                             "expression size: " +
                                 std::to_string(text.size()));
  }
  DDBD_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(text, ParameterName(kind)));
  if (tokens.size() == 1) return InvalidExpression(kind, "The expression can not be empty;");
  return tokens;
}

}  // namespace

Result<Condition> ParseCondition(std::string_view text, ExpressionKind kind) {
  DDBD_ASSIGN_OR_RETURN(std::vector<Token> tokens, Prepare(text, kind));
  return Parser(text, kind, std::move(tokens)).Condition_();
}

Result<UpdateExpression> ParseUpdate(std::string_view text) {
  DDBD_ASSIGN_OR_RETURN(std::vector<Token> tokens, Prepare(text, ExpressionKind::kUpdate));
  return Parser(text, ExpressionKind::kUpdate, std::move(tokens)).Update();
}

Result<ProjectionExpression> ParseProjection(std::string_view text) {
  DDBD_ASSIGN_OR_RETURN(std::vector<Token> tokens, Prepare(text, ExpressionKind::kProjection));
  return Parser(text, ExpressionKind::kProjection, std::move(tokens)).Projection();
}

}  // namespace ddbd::expressions
