// PartiQL for DynamoDB (ExecuteStatement and its batch and transaction forms): the four
// statements DynamoDB accepts — SELECT, INSERT, UPDATE, DELETE — parsed into the expression
// trees of the DynamoDB API (expressions/ast.h). Paths become #n placeholders and literals and
// `?` parameters :v placeholders, bound by the statement's `names` and `values`, so that the
// server runs a statement as the Query, Scan, GetItem, PutItem, UpdateItem or DeleteItem it
// amounts to, with exactly that operation's typed input and rules — no expression text is
// written or parsed again.
//
// Entry point: Parse.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "expressions/ast.h"
#include "model/attribute_value.h"
#include "model/result.h"

namespace ddbd::partiql {

// One top-level AND term of a WHERE clause: execution moves key equalities out of the filter.
struct Term {
  expressions::Condition condition;
  // `attribute = literal` (either side) on a top-level attribute: the attribute and the value.
  std::optional<std::string> equality_attribute;
  std::optional<AttributeValue> equality_value;
  // The top-level attribute the term constrains in a form a key condition accepts (=, <, <=,
  // >, >=, BETWEEN, begins_with, with the attribute on the left and literals on the right).
  std::optional<std::string> key_condition_on;
};

struct Statement {
  enum class Kind : uint8_t { kSelect, kInsert, kUpdate, kDelete };
  Kind kind = Kind::kSelect;
  std::string table;
  std::optional<std::string> index;                     // SELECT … FROM "table"."index"
  std::vector<expressions::Path> projection;            // SELECT's paths; empty for *
  std::vector<Term> where;                              // ANDed
  std::optional<Item> item;                             // INSERT's VALUE (parameters substituted)
  std::optional<expressions::UpdateExpression> update;  // UPDATE's SET/REMOVE
  std::string returning;  // ReturnValues of RETURNING (ALL_OLD, …), empty for none
  // What the trees' placeholders stand for.
  std::map<std::string, std::string, std::less<>> names;      // #n → attribute name
  std::map<std::string, AttributeValue, std::less<>> values;  // :v → value

  // The placeholder of `name` (added when new): execution adds conditions of its own.
  std::string NamePlaceholder(const std::string& name);
  std::string ValuePlaceholder(AttributeValue value);
};

// The AND of `conditions` (one condition stays itself), as a balanced tree.
// REQUIRES: `conditions` is not empty.
expressions::Condition AllOf(std::vector<expressions::Condition> conditions);

// Parses `text`, substituting `parameters` for its `?` markers in order.
// ValidationException for malformed statements and a parameter count that differs.
Result<Statement> Parse(std::string_view text, const std::vector<AttributeValue>& parameters);

}  // namespace ddbd::partiql
