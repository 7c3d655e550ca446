// Parsers: grammar coverage, precedence, and DynamoDB's syntax and semantic error texts.
#include "expressions/parser.h"

#include <gtest/gtest.h>

#include <functional>

#include "tests/testing/assertions.h"
#include "tests/testing/small_stack.h"

namespace ddbd::expressions {
namespace {

std::string ConditionError(std::string_view text,
                           ExpressionKind kind = ExpressionKind::kCondition) {
  auto parsed = ParseCondition(text, kind);
  return parsed.ok() ? "OK" : parsed.error().message();
}

std::string UpdateError(std::string_view text) {
  auto parsed = ParseUpdate(text);
  return parsed.ok() ? "OK" : parsed.error().message();
}

std::string ProjectionError(std::string_view text) {
  auto parsed = ParseProjection(text);
  return parsed.ok() ? "OK" : parsed.error().message();
}

TEST(ConditionParserTest, AcceptsTheWholeGrammar) {
  for (std::string_view text : {"a = :v",
                                "a <> :v",
                                "a < :v AND b <= :w",
                                "a > :v OR b >= :w",
                                "NOT a = :v",
                                "a BETWEEN :lo AND :hi",
                                "a IN (:x, :y, :z)",
                                "attribute_exists(a.b[2].c)",
                                "attribute_not_exists(#pk)",
                                "attribute_type(a, :t)",
                                "begins_with(SK, :p)",
                                "contains(tags, :t)",
                                "size(a) > :n",
                                "(a = :v OR b = :w) AND NOT (c = :x)",
                                "a.b.c = :v",
                                "a[0][1] = :v",
                                "#n.#m = :v",
                                "not a = :v and b = :w or c = :x",
                                ":v = a",
                                "size(a) BETWEEN :lo AND :hi"}) {
    EXPECT_EQ(ConditionError(text), "OK") << text;
  }
}

TEST(ConditionParserTest, NotBindsTighterThanAndWhichBindsTighterThanOr) {
  ASSERT_OK_AND_ASSIGN(
      Condition c, ParseCondition("NOT a = :v AND b = :w OR c = :x", ExpressionKind::kCondition));
  ASSERT_EQ(c.kind, Condition::Kind::kOr);
  ASSERT_EQ(c.children[0].kind, Condition::Kind::kAnd);
  EXPECT_EQ(c.children[0].children[0].kind, Condition::Kind::kNot);
  EXPECT_EQ(c.children[1].kind, Condition::Kind::kCompare);
}

TEST(ConditionParserTest, SyntaxErrorsNameTokenAndContext) {
  EXPECT_EQ(
      ConditionError("PK = :pk AND SK begins_with(:orderPrefix)", ExpressionKind::kKeyCondition),
      "Invalid KeyConditionExpression: Syntax error; token: \"begins_with\", near: \"SK "
      "begins_with(\"");
  EXPECT_EQ(ConditionError("foo"),
            "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \"foo\"");
  EXPECT_EQ(ConditionError("a = "),
            "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \"= \"");
  EXPECT_EQ(ConditionError("a == :v"),
            "Invalid ConditionExpression: Syntax error; token: \"=\", near: \"== :v\"");
  EXPECT_EQ(ConditionError("_a = :v"),
            "Invalid ConditionExpression: Syntax error; token: \"_\", near: \"_a\"");
  EXPECT_EQ(ConditionError("a = :v AND", ExpressionKind::kFilter),
            "Invalid FilterExpression: Syntax error; token: \"<EOF>\", near: \"AND\"");
  EXPECT_EQ(ConditionError("a IN ()"),
            "Invalid ConditionExpression: Syntax error; token: \")\", near: \"()\"");
}

TEST(ConditionParserTest, SemanticErrors) {
  EXPECT_EQ(ConditionError(""), "Invalid ConditionExpression: The expression can not be empty;");
  EXPECT_EQ(ConditionError("   "), "Invalid ConditionExpression: The expression can not be empty;");
  EXPECT_EQ(ConditionError("((a = :v))"),
            "Invalid ConditionExpression: The expression has redundant parentheses;");
  EXPECT_EQ(ConditionError("foo(a)"),
            "Invalid ConditionExpression: Invalid function name; function: foo");
  EXPECT_EQ(ConditionError("size(a)"),
            "Invalid ConditionExpression: The function is not allowed to be used this way in an "
            "expression; function: size");
  EXPECT_EQ(ConditionError("begins_with(a, :b) = :c"),
            "Invalid ConditionExpression: The function is not allowed to be used this way in an "
            "expression; function: begins_with");
  EXPECT_EQ(ConditionError("status = :v"),
            "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved "
            "keyword: status");
  EXPECT_EQ(ConditionError("attribute_exists(a, b)"),
            "Invalid ConditionExpression: Incorrect number of operands for operator or function; "
            "operator or function: attribute_exists, number of operands: 2");
  EXPECT_EQ(ConditionError("attribute_exists(:v)"),
            "Invalid ConditionExpression: Operator or function requires a document path; "
            "operator or function: attribute_exists");
  EXPECT_EQ(ConditionError("if_not_exists(a, :v) = :v"),
            "Invalid ConditionExpression: Invalid function name; function: if_not_exists");
}

TEST(ConditionParserTest, Limits) {
  std::string in_list = "a IN (";
  for (int i = 0; i < 101; ++i) in_list += (i ? ", :v" : ":v") + std::to_string(i);
  EXPECT_EQ(ConditionError(in_list + ")"),
            "Invalid ConditionExpression: The IN operator is provided with too many operands; "
            "number of operands: 101");
  std::string many = "a = :v";
  for (int i = 0; i < 150; ++i) many += " AND a = :v";
  EXPECT_EQ(ConditionError(many),
            "Invalid ConditionExpression: The expression contains too many operators; operator "
            "count: 301");
  std::string big = "a = :v" + std::string(4090, ' ');
  EXPECT_EQ(ConditionError(big), "OK");
  EXPECT_EQ(ConditionError(big + " "),
            "Invalid ConditionExpression: Expression size has exceeded the maximum allowed size; "
            "expression size: 4097");
}

TEST(UpdateParserTest, AcceptsEveryClause) {
  ASSERT_OK_AND_ASSIGN(UpdateExpression u,
                       ParseUpdate("SET a = :v, b = b + :one, c = if_not_exists(c, :z), "
                                   "d = list_append(d, :l) REMOVE e, f[2] ADD g :n DELETE h :s"));
  ASSERT_EQ(u.actions.size(), 8u);
  EXPECT_EQ(u.actions[1].value.kind, Operand::Kind::kPlus);
  EXPECT_EQ(u.actions[2].value.kind, Operand::Kind::kIfNotExists);
  EXPECT_EQ(u.actions[3].value.kind, Operand::Kind::kListAppend);
  EXPECT_EQ(u.actions[5].kind, UpdateAction::Kind::kRemove);
  EXPECT_EQ(u.actions[7].kind, UpdateAction::Kind::kDelete);
  EXPECT_EQ(UpdateError("set a = :v remove b"), "OK");
}

TEST(UpdateParserTest, Errors) {
  EXPECT_EQ(UpdateError("SET a = :v SET b = :w"),
            "Invalid UpdateExpression: The \"SET\" section can only be used once in an update "
            "expression;");
  EXPECT_EQ(UpdateError("SET a = :v,"),
            "Invalid UpdateExpression: Syntax error; token: \"<EOF>\", near: \",\"");
  EXPECT_EQ(UpdateError("a = :v"),
            "Invalid UpdateExpression: Syntax error; token: \"a\", near: \"a =\"");
  EXPECT_EQ(UpdateError("ADD a b"),
            "Invalid UpdateExpression: Syntax error; token: \"b\", near: \"a b\"");
  EXPECT_EQ(UpdateError("SET a = size(b)"),
            "Invalid UpdateExpression: The function is not allowed in an update expression; "
            "function: size");
  EXPECT_EQ(UpdateError("SET a = if_not_exists(:v, :w)"),
            "Invalid UpdateExpression: Operator or function requires a document path; operator "
            "or function: if_not_exists");
  EXPECT_EQ(UpdateError(""), "Invalid UpdateExpression: The expression can not be empty;");
  EXPECT_EQ(UpdateError("SET name = :v"),
            "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: "
            "name");
}

TEST(ProjectionParserTest, PathsAndErrors) {
  ASSERT_OK_AND_ASSIGN(ProjectionExpression p, ParseProjection("a, b.c, d[1], #e"));
  EXPECT_EQ(p.paths.size(), 4u);
  EXPECT_EQ(ProjectionError("a,"),
            "Invalid ProjectionExpression: Syntax error; token: \"<EOF>\", near: \",\"");
  EXPECT_EQ(ProjectionError("a b"),
            "Invalid ProjectionExpression: Syntax error; token: \"b\", near: \"a b\"");
  EXPECT_EQ(ProjectionError("data"),
            "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved "
            "keyword: data");
}

}  // namespace
}  // namespace ddbd::expressions

#include "expressions/parse_cache.h"

namespace ddbd::expressions {
namespace {

TEST(ParseCacheTest, SharesParsedTreesAndSeparatesKinds) {
  ASSERT_OK_AND_ASSIGN(auto first, ParsedCondition("cache_a = :v", ExpressionKind::kCondition));
  ASSERT_OK_AND_ASSIGN(auto second, ParsedCondition("cache_a = :v", ExpressionKind::kCondition));
  EXPECT_EQ(first.get(), second.get());
  ASSERT_OK_AND_ASSIGN(auto filter, ParsedCondition("cache_a = :v", ExpressionKind::kFilter));
  EXPECT_NE(first.get(), filter.get());
  auto bad = ParsedCondition("cache_a ==", ExpressionKind::kFilter);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(),
            "Invalid FilterExpression: Syntax error; token: \"=\", near: \"==\"");
}

}  // namespace
}  // namespace ddbd::expressions

namespace ddbd::expressions {
namespace {

TEST(ConditionParserTest, SyntaxErrorsKeepUtf8CharactersWhole) {
  auto parsed = ParseCondition("a = :v é", ExpressionKind::kCondition);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().message(),
            "Invalid ConditionExpression: Syntax error; token: \"é\", near: \":v é\"");
  auto second = ParseCondition(std::string("\0\xed\x9f\xbf", 4), ExpressionKind::kCondition);
  ASSERT_FALSE(second.ok());
  using namespace std::string_literals;
  EXPECT_EQ(second.error().message(),
            "Invalid ConditionExpression: Syntax error; token: \"\0\", near: \"\0\xed\x9f\xbf\""s);
}

}  // namespace
}  // namespace ddbd::expressions

namespace ddbd::expressions {
namespace {

std::string Repeat(std::string_view text, size_t times) {
  std::string out;
  for (size_t i = 0; i < times; ++i) out += text;
  return out;
}

// Every grammar at nesting depths of 10, 1,000 and 100,000, on a 1 MB stack (the parser needs
// about half of it at its nesting limit; request threads have 8 MB): each answers
// (a result or DynamoDB's error) without overflowing it.
TEST(ParserDepthTest, DeepNestingIsRefusedWithinASmallStack) {
  const std::vector<std::pair<std::string, std::string>> conditions = {
      {Repeat("(", 10) + "a = :v" + Repeat(")", 10),
       "Invalid ConditionExpression: The expression has redundant parentheses;"},
      {Repeat("(", 1000) + "a = :v" + Repeat(")", 1000),
       "Invalid ConditionExpression: The expression has redundant parentheses;"},
      {Repeat("(", 2000) + "a = :v" + Repeat(")", 2000),
       "Invalid ConditionExpression: The expression has redundant parentheses;"},
      {Repeat("(", 100000) + "a" + Repeat(")", 100000) + " = :v",
       "Invalid ConditionExpression: Expression size has exceeded the maximum allowed size; "
       "expression size: 200006"},
      {Repeat("NOT ", 10) + "a = :v", "OK"},
      {Repeat("NOT ", 1000) + "a = :v",
       "Invalid ConditionExpression: The expression contains too many operators; operator "
       "count: 1001"},
      // Within the nesting guard: 199 "NOT (" levels; beyond it (a documented difference: DynamoDB
      // accepts up to its operator limit) the guard's answer.
      {Repeat("NOT (", 199) + "a = :v" + Repeat(")", 199), "OK"},
      {Repeat("NOT (", 250) + "a = :v" + Repeat(")", 250),
       "Invalid ConditionExpression: The expression has redundant parentheses;"},
      {Repeat("size(", 10) + "a" + Repeat(")", 10) + " = :v", "OK"},
      {Repeat("size(", 600) + "a" + Repeat(")", 600) + " = :v",
       "Invalid ConditionExpression: The expression has redundant parentheses;"},
      {Repeat("(a = :v AND ", 140) + "a = :v" + Repeat(")", 140), "OK"},
  };
  const std::vector<std::pair<std::string, std::string>> updates = {
      {"SET a = " + Repeat("(", 10) + ":v" + Repeat(")", 10), "OK"},
      {"SET a = " + Repeat("(", 2000) + ":v" + Repeat(")", 2000),
       "Invalid UpdateExpression: The expression has redundant parentheses;"},
      {"SET a = " + Repeat("list_append(:v, ", 150) + ":v" + Repeat(")", 150), "OK"},
      {"SET a = " + Repeat("list_append(:v, ", 240) + ":v" + Repeat(")", 240),
       "Invalid UpdateExpression: The expression has redundant parentheses;"},
  };
  testing::RunOnSmallStack(testing::kSanitizerStackFactor * 1024 * 1024, [&] {
    for (const auto& [text, expected] : conditions) {
      EXPECT_EQ(ConditionError(text), expected) << text.substr(0, 40);
    }
    for (const auto& [text, expected] : updates) {
      EXPECT_EQ(UpdateError(text), expected) << text.substr(0, 40);
    }
    EXPECT_EQ(ProjectionError(Repeat("a.", 20000) + "a"),
              "Invalid ProjectionExpression: Expression size has exceeded the maximum allowed "
              "size; expression size: 40001");
    EXPECT_EQ(ConditionError(Repeat("(", 1200) + "a = :v" + Repeat(")", 1200),
                             ExpressionKind::kKeyCondition),
              "Invalid KeyConditionExpression: The expression has redundant parentheses;");
  });
}

}  // namespace
}  // namespace ddbd::expressions
