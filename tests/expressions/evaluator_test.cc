// Bindings, condition evaluation, projection and update semantics over real items.
#include "expressions/evaluator.h"

#include <gtest/gtest.h>

#include "expressions/update.h"
#include "tests/testing/assertions.h"

namespace ddbd::expressions {
namespace {

AttributeValue S(std::string s) { return AttributeValue::String(std::move(s)); }
AttributeValue N(std::string n) { return AttributeValue::NumberText(std::move(n)); }

Item Sample() {
  Item item;
  item["PK"] = S("USER#1");
  item["name"] = S("Alice");
  item["age"] = N("30");
  item["tags"] = AttributeValue::Set(AttributeType::kSS, {"admin", "dev"});
  item["scores"] = AttributeValue::List({N("1"), N("2"), N("3")});
  AttributeMap address;
  address["city"] = S("Paris");
  address["zip"] = S("75001");
  item["address"] = AttributeValue::Map(address);
  item["nothing"] = AttributeValue::Null();
  return item;
}

class ExpressionTest : public ::testing::Test {
 protected:
  Bindings MakeBindings() {
    std::map<std::string, AttributeValue, std::less<>> values = {
        {":alice", S("Alice")},
        {":bob", S("Bob")},
        {":20", N("20")},
        {":30", N("30")},
        {":40", N("40")},
        {":admin", S("admin")},
        {":Al", S("Al")},
        {":two", N("2")},
        {":one", N("1")},
        {":S", S("S")},
        {":SS", S("SS")},
        {":paris", S("Paris")},
        {":ops", AttributeValue::Set(AttributeType::kSS, {"ops", "admin"})},
        {":list", AttributeValue::List({N("4")})},
        {":str30", S("30")},
    };
    std::map<std::string, std::string, std::less<>> names = {{"#n", "name"}, {"#a", "address"}};
    return Bindings(names, values);
  }

  bool Eval(std::string_view text) {
    Bindings bindings = MakeBindings();
    auto parsed = ParseCondition(text, ExpressionKind::kFilter);
    EXPECT_TRUE(parsed.ok()) << text << ": " << (parsed.ok() ? "" : parsed.error().message());
    if (!parsed.ok()) return false;
    Status bound = bindings.BindCondition(*parsed, ExpressionKind::kFilter);
    EXPECT_TRUE(bound.ok()) << text << ": " << (bound.ok() ? "" : bound.error().message());
    return Matches(*parsed, Sample(), bindings);
  }

  std::string BindError(std::string_view text) {
    Bindings bindings = MakeBindings();
    auto parsed = ParseCondition(text, ExpressionKind::kFilter);
    if (!parsed.ok()) return "PARSE: " + parsed.error().message();
    Status bound = bindings.BindCondition(*parsed, ExpressionKind::kFilter);
    return bound.ok() ? "OK" : bound.error().message();
  }

  Result<Item> Update(std::string_view text, const Item& item) {
    Bindings bindings = MakeBindings();
    DDBD_ASSIGN_OR_RETURN(UpdateExpression update, ParseUpdate(text));
    DDBD_RETURN_IF_ERROR(bindings.BindUpdate(update));
    return ApplyUpdate(update, bindings, item);
  }
};

TEST_F(ExpressionTest, Comparisons) {
  EXPECT_TRUE(Eval("#n = :alice"));
  EXPECT_FALSE(Eval("#n = :bob"));
  EXPECT_TRUE(Eval("#n <> :bob"));
  EXPECT_TRUE(Eval("age > :20 AND age < :40"));
  EXPECT_TRUE(Eval("age >= :30 AND age <= :30"));
  EXPECT_FALSE(Eval("age = :str30"));  // different types are never equal
  EXPECT_FALSE(Eval("age < :str30"));  // nor ordered
  EXPECT_FALSE(Eval("absent = :30"));
  EXPECT_TRUE(Eval("absent <> :30"));  // a missing attribute is not equal to anything
  EXPECT_TRUE(Eval("age BETWEEN :20 AND :40"));
  EXPECT_TRUE(Eval("#n IN (:bob, :alice)"));
  EXPECT_FALSE(Eval("#n IN (:bob)"));
  EXPECT_TRUE(Eval("NOT #n = :bob"));
  EXPECT_TRUE(Eval("#n = :bob OR age = :30"));
}

TEST_F(ExpressionTest, Functions) {
  EXPECT_TRUE(Eval("attribute_exists(#a.city)"));
  EXPECT_FALSE(Eval("attribute_exists(#a.country)"));
  EXPECT_TRUE(Eval("attribute_not_exists(scores[5])"));
  EXPECT_TRUE(Eval("attribute_exists(scores[2])"));
  EXPECT_TRUE(Eval("attribute_exists(nothing)"));
  EXPECT_TRUE(Eval("attribute_type(tags, :SS)"));
  EXPECT_FALSE(Eval("attribute_type(tags, :S)"));
  EXPECT_TRUE(Eval("begins_with(#n, :Al)"));
  EXPECT_FALSE(Eval("begins_with(age, :Al)"));
  EXPECT_TRUE(Eval("contains(tags, :admin)"));
  EXPECT_TRUE(Eval("contains(#n, :Al)"));
  EXPECT_TRUE(Eval("contains(scores, :two)"));
  EXPECT_FALSE(Eval("contains(scores, :40)"));
  EXPECT_TRUE(Eval("size(scores) = :30") == false);
  EXPECT_TRUE(Eval("size(tags) = :two"));
  EXPECT_TRUE(Eval("size(#n) > :two"));
  EXPECT_TRUE(Eval("#a.city = :paris"));
  EXPECT_TRUE(Eval("scores[0] = :one"));
}

TEST_F(ExpressionTest, BindErrors) {
  EXPECT_EQ(BindError("#x = :alice"),
            "Invalid FilterExpression: An expression attribute name used in the document path is "
            "not defined; attribute name: #x");
  EXPECT_EQ(BindError("a = :nope"),
            "Invalid FilterExpression: An expression attribute value used in expression is not "
            "defined; attribute value: :nope");
  EXPECT_EQ(BindError("begins_with(a, :20)"),
            "Invalid FilterExpression: Incorrect operand type for operator or function; operator "
            "or function: begins_with, operand type: N");
  EXPECT_EQ(BindError("attribute_type(a, :20)"),
            "Invalid FilterExpression: Incorrect operand type for operator or function; operator "
            "or function: attribute_type, operand type: N");
  EXPECT_EQ(BindError("attribute_type(a, :alice)"),
            "Invalid FilterExpression: Invalid attribute type name found; type: Alice, valid "
            "types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}");
  EXPECT_EQ(BindError("a BETWEEN :40 AND :20"),
            "Invalid FilterExpression: The BETWEEN operator requires upper bound to be greater "
            "than or equal to lower bound; lower bound operand: AttributeValue: {N:40}, upper "
            "bound operand: AttributeValue: {N:20}");
  EXPECT_EQ(BindError("a BETWEEN :20 AND :alice"),
            "Invalid FilterExpression: The BETWEEN operator requires same data type for lower and "
            "upper bounds; lower bound operand: AttributeValue: {N:20}, upper bound operand: "
            "AttributeValue: {S:Alice}");
  EXPECT_EQ(BindError("size(:20) > a"),
            "Invalid FilterExpression: Incorrect operand type for operator or function; operator "
            "or function: size, operand type: N");
}

TEST_F(ExpressionTest, UnusedPlaceholders) {
  Bindings bindings = MakeBindings();
  auto parsed = ParseCondition("#n = :alice", ExpressionKind::kCondition);
  ASSERT_OK(bindings.BindCondition(*parsed, ExpressionKind::kCondition));
  Status unused = bindings.CheckAllUsed();
  ASSERT_FALSE(unused.ok());
  EXPECT_EQ(unused.error().message(),
            "Value provided in ExpressionAttributeNames unused in expressions: keys: {#a}");
}

TEST_F(ExpressionTest, ProjectionKeepsNestedShape) {
  Bindings bindings = MakeBindings();
  ASSERT_OK_AND_ASSIGN(auto projection, ParseProjection("#n, #a.city, scores[2], scores[0], x.y"));
  ASSERT_OK(bindings.BindProjection(projection));
  std::vector<ResolvedPath> paths;
  for (const auto& p : projection.paths) paths.push_back(bindings.Resolve(p));
  Item projected = Project(Sample(), paths);
  Item expected;
  expected["name"] = S("Alice");
  AttributeMap city;
  city["city"] = S("Paris");
  expected["address"] = AttributeValue::Map(city);
  expected["scores"] = AttributeValue::List({N("1"), N("3")});
  EXPECT_EQ(projected, expected);
}

TEST_F(ExpressionTest, OverlappingProjectionPaths) {
  Bindings bindings = MakeBindings();
  ASSERT_OK_AND_ASSIGN(auto projection, ParseProjection("a, a.b"));
  Status bound = bindings.BindProjection(projection);
  ASSERT_FALSE(bound.ok());
  EXPECT_EQ(bound.error().message(),
            "Invalid ProjectionExpression: Two document paths overlap with each other; must "
            "remove or rewrite one of these paths; path one: [a], path two: [a, b]");
}

TEST_F(ExpressionTest, UpdateSetArithmeticAndFunctions) {
  ASSERT_OK_AND_ASSIGN(Item updated,
                       Update("SET age = age + :one, newer = if_not_exists(newer, :two), "
                              "scores = list_append(scores, :list), #a.zip = :alice",
                              Sample()));
  EXPECT_EQ(updated.at("age"), N("31"));
  EXPECT_EQ(updated.at("newer"), N("2"));
  EXPECT_EQ(updated.at("scores").list().size(), 4u);
  EXPECT_EQ(updated.at("address").map().at("zip"), S("Alice"));
}

TEST_F(ExpressionTest, UpdateEvaluatesAgainstTheOriginalItem) {
  ASSERT_OK_AND_ASSIGN(Item updated, Update("SET age = #n, #n = age", Sample()));
  EXPECT_EQ(updated.at("age"), S("Alice"));
  EXPECT_EQ(updated.at("name"), N("30"));
}

TEST_F(ExpressionTest, UpdateRemoveShiftsLists) {
  ASSERT_OK_AND_ASSIGN(Item updated, Update("REMOVE scores[0], scores[2], nothing", Sample()));
  EXPECT_EQ(updated.at("scores"), AttributeValue::List({N("2")}));
  EXPECT_EQ(updated.count("nothing"), 0u);
}

TEST_F(ExpressionTest, UpdateListIndexPastEndAppends) {
  ASSERT_OK_AND_ASSIGN(Item updated, Update("SET scores[10] = :40", Sample()));
  EXPECT_EQ(updated.at("scores").list().back(), N("40"));
  EXPECT_EQ(updated.at("scores").list().size(), 4u);
}

TEST_F(ExpressionTest, UpdateAddAndDelete) {
  ASSERT_OK_AND_ASSIGN(Item updated, Update("ADD age :one, tally :two, tags :ops", Sample()));
  EXPECT_EQ(updated.at("age"), N("31"));
  EXPECT_EQ(updated.at("tally"), N("2"));
  EXPECT_EQ(updated.at("tags"), AttributeValue::Set(AttributeType::kSS, {"admin", "dev", "ops"}));
  ASSERT_OK_AND_ASSIGN(Item removed, Update("DELETE tags :ops", updated));
  EXPECT_EQ(removed.at("tags"), AttributeValue::Set(AttributeType::kSS, {"dev"}));
}

TEST_F(ExpressionTest, UpdateErrors) {
  auto wrong = Update("SET #n = #n + :one", Sample());
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().message(),
            "An operand in the update expression has an incorrect data type");
  auto missing = Update("SET a = absent + :one", Sample());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message(),
            "The provided expression refers to an attribute that does not exist in the item");
  auto bad_path = Update("SET nope.deeper = :one", Sample());
  ASSERT_FALSE(bad_path.ok());
  EXPECT_EQ(bad_path.error().message(),
            "The document path provided in the update expression is invalid for update");
  auto add_string = Update("ADD #n :alice", Sample());
  ASSERT_FALSE(add_string.ok());
  EXPECT_EQ(add_string.error().message(),
            "Invalid UpdateExpression: Incorrect operand type for operator or function; "
            "operator: ADD, operand type: STRING, typeSet: ALLOWED_FOR_ADD_OPERAND");
  auto same = Update("SET a = :one REMOVE a", Sample());
  ASSERT_FALSE(same.ok());
  EXPECT_EQ(same.error().message(),
            "Invalid UpdateExpression: Two document paths overlap with each other; must remove "
            "or rewrite one of these paths; path one: [a], path two: [a]");
  auto conflict = Update("SET l.b = :one, l[1] = :two", Sample());
  ASSERT_FALSE(conflict.ok());
  EXPECT_EQ(conflict.error().message(),
            "Invalid UpdateExpression: Two document paths conflict with each other; must remove "
            "or rewrite one of these paths; path one: [l, b], path two: [l, [1]]");
  auto overlap = Update("SET a.b = :one, a = :two", Sample());
  ASSERT_FALSE(overlap.ok());
  EXPECT_EQ(overlap.error().message(),
            "Invalid UpdateExpression: Two document paths overlap with each other; must remove "
            "or rewrite one of these paths; path one: [a, b], path two: [a]");
}

}  // namespace
}  // namespace ddbd::expressions
