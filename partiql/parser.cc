// The PartiQL parser: statements → expression trees over generated placeholders.
#include "expressions/parser.h"

#include <algorithm>
#include <span>

#include "model/number.h"
#include "partiql/cursor.h"
#include "partiql/lexer.h"
#include "partiql/literal.h"
#include "partiql/statement.h"

namespace ddbd::partiql {

using expressions::Comparator;
using expressions::Condition;
using expressions::Operand;
using expressions::Path;
using expressions::PathElement;

std::string Statement::NamePlaceholder(const std::string& name) {
  for (const auto& [placeholder, existing] : names) {
    if (existing == name) return placeholder;
  }
  std::string placeholder = "#n" + std::to_string(names.size());
  names.emplace(placeholder, name);
  return placeholder;
}

std::string Statement::ValuePlaceholder(AttributeValue value) {
  std::string placeholder = ":v" + std::to_string(values.size());
  values.emplace(placeholder, std::move(value));
  return placeholder;
}

namespace {

// Joins `conditions` with `kind` into a balanced tree: thousands of terms nest only as deep
// as their logarithm.
Condition Join(std::span<Condition> conditions, Condition::Kind kind) {
  if (conditions.size() == 1) return std::move(conditions[0]);
  const size_t half = conditions.size() / 2;
  Condition node;
  node.kind = kind;
  node.children.push_back(Join(conditions.first(half), kind));
  node.children.push_back(Join(conditions.subspan(half), kind));
  return node;
}

Condition WithOperands(Condition::Kind kind, std::vector<Operand> operands) {
  Condition condition;
  condition.kind = kind;
  condition.operands = std::move(operands);
  return condition;
}

Condition Negated(Condition inner) {
  Condition negated;
  negated.kind = Condition::Kind::kNot;
  negated.children.push_back(std::move(inner));
  return negated;
}

// A parsed operand and what execution needs to know of it: whether it is a plain top-level
// attribute (and which) or a literal (and its value).
struct ParsedOperand {
  Operand operand;
  std::optional<std::string> attribute;
  std::optional<AttributeValue> literal;
};

class Parser {
 public:
  Parser(std::vector<Token> tokens, const std::vector<AttributeValue>& parameters)
      : in_(std::move(tokens)), parameters_{parameters} {}

  Result<Statement> Parse() {
    if (in_.Keyword("SELECT")) {
      DDBD_RETURN_IF_ERROR(Select());
    } else if (in_.Keyword("INSERT")) {
      DDBD_RETURN_IF_ERROR(Insert());
    } else if (in_.Keyword("UPDATE")) {
      DDBD_RETURN_IF_ERROR(Update());
    } else if (in_.Keyword("DELETE")) {
      DDBD_RETURN_IF_ERROR(Delete());
    } else {
      return in_.Unexpected();
    }
    in_.Punct(";");
    if (in_.Peek().kind != Token::Kind::kEnd) return in_.Unexpected();
    if (parameters_.next != parameters_.values.size()) {
      return Error::Validation("Number of parameters in request and statement doesn't match.");
    }
    return std::move(statement_);
  }

 private:
  static constexpr int kMaxConditionDepth = 100;

  // Counts one level of nesting while alive; deep statements are refused before they could
  // exhaust the stack.
  struct Nested {
    explicit Nested(int& depth) : depth_(depth) { ++depth_; }
    ~Nested() { --depth_; }
    int& depth_;
  };

  PathElement NameElement(const std::string& name) {
    PathElement element;
    element.kind = PathElement::Kind::kNamePlaceholder;
    element.name = statement_.NamePlaceholder(name);
    return element;
  }

  // name ('.' name | '[' n ']')*, within the expression grammar's limits; `first` receives
  // the leading name.
  Result<Path> ParsePath(std::string* first = nullptr) {
    DDBD_ASSIGN_OR_RETURN(std::string name, in_.Identifier());
    if (first) *first = name;
    Path path;
    path.elements.push_back(NameElement(name));
    for (;;) {
      if (in_.Punct(".")) {
        DDBD_ASSIGN_OR_RETURN(std::string member, in_.Identifier());
        path.elements.push_back(NameElement(member));
      } else if (in_.Punct("[")) {
        DDBD_ASSIGN_OR_RETURN(int64_t index, ListIndex());
        PathElement element;
        element.kind = PathElement::Kind::kIndex;
        element.index = index;
        path.elements.push_back(std::move(element));
        DDBD_RETURN_IF_ERROR(in_.Expect("]"));
      } else {
        return path;
      }
      if (path.elements.size() > expressions::kMaxPathLevels) {
        return Error::Validation("The document path has too many nesting levels; nesting levels: " +
                                 std::to_string(path.elements.size()));
      }
    }
  }

  // A list index: digits only, at most 2^31-1 (the expression grammar's bound).
  Result<int64_t> ListIndex() {
    const Token& token = in_.Peek();
    const bool digits = token.kind == Token::Kind::kNumber &&
                        std::all_of(token.text.begin(), token.text.end(),
                                    [](char c) { return c >= '0' && c <= '9'; });
    if (!digits) return in_.Unexpected();
    if (token.text.size() > 10 || std::stoll(token.text) > expressions::kMaxListIndex) {
      return Error::Validation("List index is not within the allowable range; index: [" +
                               token.text + "]");
    }
    const int64_t index = std::stoll(token.text);
    in_.Advance();
    return index;
  }

  Operand ValueOperand(AttributeValue value) {
    Operand operand;
    operand.kind = Operand::Kind::kValue;
    operand.placeholder = statement_.ValuePlaceholder(std::move(value));
    return operand;
  }

  static Operand PathOperand(Path path) {
    Operand operand;
    operand.kind = Operand::Kind::kPath;
    operand.path = std::move(path);
    return operand;
  }

  // A condition operand: a literal, a path or size(path).
  Result<ParsedOperand> ParseOperand() {
    ParsedOperand parsed;
    if (AtLiteral(in_)) {
      DDBD_ASSIGN_OR_RETURN(AttributeValue literal, ReadLiteral(in_, parameters_));
      parsed.literal = literal;
      parsed.operand = ValueOperand(std::move(literal));
      return parsed;
    }
    if (in_.AtCall("size")) {
      in_.Advance(2);
      DDBD_ASSIGN_OR_RETURN(Path path, ParsePath());
      DDBD_RETURN_IF_ERROR(in_.Expect(")"));
      parsed.operand.kind = Operand::Kind::kSize;
      parsed.operand.args.push_back(PathOperand(std::move(path)));
      return parsed;
    }
    const size_t start = in_.position();
    std::string first;
    DDBD_ASSIGN_OR_RETURN(Path path, ParsePath(&first));
    if (in_.position() == start + 1) parsed.attribute = first;
    parsed.operand = PathOperand(std::move(path));
    return parsed;
  }

  // begins_with(path, operand), contains(path, operand), attribute_type(path, operand).
  Result<Term> FunctionPredicate() {
    static constexpr std::pair<std::string_view, Condition::Kind> kFunctions[] = {
        {"begins_with", Condition::Kind::kBeginsWith},
        {"contains", Condition::Kind::kContains},
        {"attribute_type", Condition::Kind::kAttributeType}};
    for (auto [name, kind] : kFunctions) {
      if (!in_.AtCall(name)) continue;
      in_.Advance(2);
      const size_t path_start = in_.position();
      std::string first;
      DDBD_ASSIGN_OR_RETURN(Path path, ParsePath(&first));
      const bool simple = in_.position() == path_start + 1;
      DDBD_RETURN_IF_ERROR(in_.Expect(","));
      DDBD_ASSIGN_OR_RETURN(ParsedOperand operand, ParseOperand());
      DDBD_RETURN_IF_ERROR(in_.Expect(")"));
      Term term;
      term.condition = WithOperands(kind, {PathOperand(std::move(path)), operand.operand});
      if (kind == Condition::Kind::kBeginsWith && simple && operand.literal) {
        term.key_condition_on = first;
      }
      return term;
    }
    return in_.Unexpected();
  }

  // `left IS [NOT] MISSING|NULL`: both test an attribute, so `left` must be a path.
  Result<Term> IsPredicate(ParsedOperand left) {
    if (left.operand.kind != Operand::Kind::kPath) {
      return Malformed("IS MISSING and IS NULL need an attribute path");
    }
    const bool negated = in_.Keyword("NOT");
    Term term;
    if (in_.Keyword("MISSING")) {
      term.condition = WithOperands(
          negated ? Condition::Kind::kAttributeExists : Condition::Kind::kAttributeNotExists,
          {std::move(left.operand)});
    } else if (in_.Keyword("NULL")) {
      Condition is_null =
          WithOperands(Condition::Kind::kAttributeType,
                       {std::move(left.operand), ValueOperand(AttributeValue::String("NULL"))});
      term.condition = negated ? Negated(std::move(is_null)) : std::move(is_null);
    } else {
      return in_.Unexpected();
    }
    return term;
  }

  Result<Term> ComparisonPredicate(ParsedOperand left) {
    static constexpr std::pair<std::string_view, Comparator> kComparators[] = {
        {"=", Comparator::kEq}, {"<>", Comparator::kNe}, {"!=", Comparator::kNe},
        {"<", Comparator::kLt}, {"<=", Comparator::kLe}, {">", Comparator::kGt},
        {">=", Comparator::kGe}};
    for (auto [text, comparator] : kComparators) {
      if (!in_.Punct(text)) continue;
      DDBD_ASSIGN_OR_RETURN(ParsedOperand right, ParseOperand());
      Term term;
      term.condition = WithOperands(Condition::Kind::kCompare, {left.operand, right.operand});
      term.condition.comparator = comparator;
      if (comparator != Comparator::kNe && left.attribute && right.literal) {
        term.key_condition_on = left.attribute;
      }
      if (comparator == Comparator::kEq) {
        if (left.attribute && right.literal) {
          term.equality_attribute = left.attribute;
          term.equality_value = right.literal;
        } else if (right.attribute && left.literal) {
          term.equality_attribute = right.attribute;
          term.equality_value = left.literal;
        }
      }
      return term;
    }
    return in_.Unexpected();
  }

  // One predicate (or a parenthesised condition) as a term.
  Result<Term> Predicate() {
    Nested nested(condition_depth_);
    if (condition_depth_ > kMaxConditionDepth)
      return Malformed("the condition is nested too deeply");
    if (in_.Keyword("NOT")) {
      DDBD_ASSIGN_OR_RETURN(Term inner, Predicate());
      return Term{Negated(std::move(inner.condition)), {}, {}, {}};
    }
    if (in_.Punct("(")) {
      DDBD_ASSIGN_OR_RETURN(Condition inner, ParseCondition());
      DDBD_RETURN_IF_ERROR(in_.Expect(")"));
      inner.parenthesized = true;
      return Term{std::move(inner), {}, {}, {}};
    }
    if (in_.AtCall("begins_with") || in_.AtCall("contains") || in_.AtCall("attribute_type")) {
      return FunctionPredicate();
    }
    DDBD_ASSIGN_OR_RETURN(ParsedOperand left, ParseOperand());
    if (in_.Keyword("IS")) return IsPredicate(std::move(left));
    if (in_.Keyword("BETWEEN")) {
      DDBD_ASSIGN_OR_RETURN(ParsedOperand low, ParseOperand());
      DDBD_RETURN_IF_ERROR(in_.ExpectKeyword("AND"));
      DDBD_ASSIGN_OR_RETURN(ParsedOperand high, ParseOperand());
      Term term;
      term.condition =
          WithOperands(Condition::Kind::kBetween, {left.operand, low.operand, high.operand});
      if (left.attribute && low.literal && high.literal) term.key_condition_on = left.attribute;
      return term;
    }
    if (in_.Keyword("IN")) {
      const bool bracket = in_.Punct("[");
      if (!bracket) DDBD_RETURN_IF_ERROR(in_.Expect("("));
      std::vector<Operand> operands{std::move(left.operand)};
      do {
        DDBD_ASSIGN_OR_RETURN(ParsedOperand member, ParseOperand());
        operands.push_back(std::move(member.operand));
      } while (in_.Punct(","));
      DDBD_RETURN_IF_ERROR(in_.Expect(bracket ? "]" : ")"));
      return Term{WithOperands(Condition::Kind::kIn, std::move(operands)), {}, {}, {}};
    }
    return ComparisonPredicate(std::move(left));
  }

  // AND-ed predicates, as terms.
  Result<std::vector<Term>> Conjunction() {
    std::vector<Term> terms;
    do {
      DDBD_ASSIGN_OR_RETURN(Term term, Predicate());
      terms.push_back(std::move(term));
    } while (in_.Keyword("AND"));
    return terms;
  }

  static Condition ConditionOf(std::vector<Term> terms) {
    std::vector<Condition> conditions;
    for (Term& term : terms) conditions.push_back(std::move(term.condition));
    return AllOf(std::move(conditions));
  }

  // A whole condition: its AND terms, or one term when ORs join groups.
  Result<std::vector<Term>> Where() {
    DDBD_ASSIGN_OR_RETURN(std::vector<Term> first, Conjunction());
    if (!in_.Keyword("OR")) return first;
    std::vector<Condition> groups;
    groups.push_back(ConditionOf(std::move(first)));
    do {
      DDBD_ASSIGN_OR_RETURN(std::vector<Term> next, Conjunction());
      groups.push_back(ConditionOf(std::move(next)));
    } while (in_.Keyword("OR"));
    std::vector<Term> one(1);
    one[0].condition = Join(groups, Condition::Kind::kOr);
    return one;
  }

  Result<Condition> ParseCondition() {
    DDBD_ASSIGN_OR_RETURN(std::vector<Term> terms, Where());
    return ConditionOf(std::move(terms));
  }

  Status TableName(bool allow_index) {
    DDBD_ASSIGN_OR_RETURN(statement_.table, in_.Identifier());
    if (allow_index && in_.Punct(".")) {
      DDBD_ASSIGN_OR_RETURN(std::string index, in_.Identifier());
      statement_.index = std::move(index);
    }
    return OkStatus();
  }

  Status OptionalWhere() {
    if (in_.Keyword("WHERE")) {
      DDBD_ASSIGN_OR_RETURN(statement_.where, Where());
    }
    return OkStatus();
  }

  Status Select() {
    statement_.kind = Statement::Kind::kSelect;
    if (!in_.Punct("*")) {
      do {
        DDBD_ASSIGN_OR_RETURN(Path path, ParsePath());
        statement_.projection.push_back(std::move(path));
      } while (in_.Punct(","));
    }
    DDBD_RETURN_IF_ERROR(in_.ExpectKeyword("FROM"));
    DDBD_RETURN_IF_ERROR(TableName(/*allow_index=*/true));
    return OptionalWhere();
  }

  Status Insert() {
    statement_.kind = Statement::Kind::kInsert;
    DDBD_RETURN_IF_ERROR(in_.ExpectKeyword("INTO"));
    DDBD_RETURN_IF_ERROR(TableName(/*allow_index=*/false));
    DDBD_RETURN_IF_ERROR(in_.ExpectKeyword("VALUE"));
    DDBD_ASSIGN_OR_RETURN(AttributeValue item, ReadLiteral(in_, parameters_));
    if (item.type() != AttributeType::kM) return Malformed("VALUE must be a tuple {...}");
    statement_.item = Item(item.map());
    return OkStatus();
  }

  // An UPDATE's right-hand side: literal, path, list_append(a, b), if_not_exists(p, v), and
  // a + b / a - b.
  Result<Operand> SetOperand() {
    Nested nested(condition_depth_);
    if (condition_depth_ > kMaxConditionDepth) return Malformed("the value is nested too deeply");
    Operand left;
    if (in_.AtCall("list_append") || in_.AtCall("if_not_exists")) {
      left.kind =
          in_.AtCall("list_append") ? Operand::Kind::kListAppend : Operand::Kind::kIfNotExists;
      in_.Advance(2);
      DDBD_ASSIGN_OR_RETURN(Operand a, SetOperand());
      DDBD_RETURN_IF_ERROR(in_.Expect(","));
      DDBD_ASSIGN_OR_RETURN(Operand b, SetOperand());
      DDBD_RETURN_IF_ERROR(in_.Expect(")"));
      left.args = {std::move(a), std::move(b)};
    } else {
      DDBD_ASSIGN_OR_RETURN(ParsedOperand parsed, ParseOperand());
      left = std::move(parsed.operand);
    }
    for (auto [sign, kind] : {std::pair{"+", Operand::Kind::kPlus}, {"-", Operand::Kind::kMinus}}) {
      if (!in_.Punct(sign)) continue;
      DDBD_ASSIGN_OR_RETURN(ParsedOperand right, ParseOperand());
      Operand arithmetic;
      arithmetic.kind = kind;
      arithmetic.args = {std::move(left), std::move(right.operand)};
      return arithmetic;
    }
    return left;
  }

  using Action = expressions::UpdateAction;

  // One assignment of SET: `path = value`, or set_add/set_delete(path, value) on the
  // assigned path, which are the API's ADD and DELETE actions.
  Result<Action> Assignment() {
    DDBD_ASSIGN_OR_RETURN(Path path, ParsePath());
    DDBD_RETURN_IF_ERROR(in_.Expect("="));
    Action action;
    action.kind = Action::Kind::kSet;
    if (in_.AtCall("set_add") || in_.AtCall("set_delete")) {
      action.kind = in_.AtCall("set_add") ? Action::Kind::kAdd : Action::Kind::kDelete;
      in_.Advance(2);
      DDBD_ASSIGN_OR_RETURN(Path target, ParsePath());
      if (!SamePath(target, path)) {
        return Malformed("set_add and set_delete must name the assigned path");
      }
      DDBD_RETURN_IF_ERROR(in_.Expect(","));
      DDBD_ASSIGN_OR_RETURN(ParsedOperand value, ParseOperand());
      DDBD_RETURN_IF_ERROR(in_.Expect(")"));
      action.value = std::move(value.operand);
    } else {
      DDBD_ASSIGN_OR_RETURN(action.value, SetOperand());
    }
    action.path = std::move(path);
    return action;
  }

  static bool SamePath(const Path& a, const Path& b) {
    return std::equal(a.elements.begin(), a.elements.end(), b.elements.begin(), b.elements.end(),
                      [](const PathElement& x, const PathElement& y) {
                        return x.kind == y.kind && x.name == y.name && x.index == y.index;
                      });
  }

  Status Update() {
    statement_.kind = Statement::Kind::kUpdate;
    DDBD_RETURN_IF_ERROR(TableName(/*allow_index=*/false));
    // Actions by clause, in the order an UpdateExpression lists its clauses.
    std::vector<Action> sets, removes, adds, deletes;
    bool any = false;
    for (;;) {
      if (in_.Keyword("SET")) {
        do {
          DDBD_ASSIGN_OR_RETURN(Action action, Assignment());
          (action.kind == Action::Kind::kSet   ? sets
           : action.kind == Action::Kind::kAdd ? adds
                                               : deletes)
              .push_back(std::move(action));
        } while (in_.Punct(","));
      } else if (in_.Keyword("REMOVE")) {
        do {
          Action action;
          action.kind = Action::Kind::kRemove;
          DDBD_ASSIGN_OR_RETURN(action.path, ParsePath());
          removes.push_back(std::move(action));
        } while (in_.Punct(","));
      } else {
        break;
      }
      any = true;
    }
    if (!any) return in_.Unexpected();
    expressions::UpdateExpression update;
    for (auto* actions : {&sets, &removes, &adds, &deletes}) {
      for (Action& action : *actions) update.actions.push_back(std::move(action));
    }
    statement_.update = std::move(update);
    DDBD_RETURN_IF_ERROR(OptionalWhere());
    return Returning({"ALL OLD", "MODIFIED OLD", "ALL NEW", "MODIFIED NEW"});
  }

  Status Delete() {
    statement_.kind = Statement::Kind::kDelete;
    DDBD_RETURN_IF_ERROR(in_.ExpectKeyword("FROM"));
    DDBD_RETURN_IF_ERROR(TableName(/*allow_index=*/false));
    DDBD_RETURN_IF_ERROR(OptionalWhere());
    return Returning({"ALL OLD"});
  }

  // RETURNING ALL|MODIFIED OLD|NEW * → ReturnValues.
  Status Returning(std::initializer_list<std::string_view> allowed) {
    if (!in_.Keyword("RETURNING")) return OkStatus();
    std::string which;
    if (in_.Keyword("ALL"))
      which = "ALL";
    else if (in_.Keyword("MODIFIED"))
      which = "MODIFIED";
    else
      return in_.Unexpected();
    if (in_.Keyword("OLD"))
      which += " OLD";
    else if (in_.Keyword("NEW"))
      which += " NEW";
    else
      return in_.Unexpected();
    DDBD_RETURN_IF_ERROR(in_.Expect("*"));
    if (std::find(allowed.begin(), allowed.end(), std::string_view(which)) == allowed.end()) {
      return Malformed("RETURNING " + which + " * is not allowed here");
    }
    statement_.returning = which == "ALL OLD"        ? "ALL_OLD"
                           : which == "ALL NEW"      ? "ALL_NEW"
                           : which == "MODIFIED OLD" ? "UPDATED_OLD"
                                                     : "UPDATED_NEW";
    return OkStatus();
  }

  Cursor in_;
  Parameters parameters_;
  int condition_depth_ = 0;
  Statement statement_;
};

}  // namespace

Condition AllOf(std::vector<Condition> conditions) {
  return Join(conditions, Condition::Kind::kAnd);
}

Result<Statement> Parse(std::string_view text, const std::vector<AttributeValue>& parameters) {
  DDBD_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(text));
  return Parser(std::move(tokens), parameters).Parse();
}

}  // namespace ddbd::partiql
