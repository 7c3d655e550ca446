// PartiQL for DynamoDB (ExecuteStatement): the four statements DynamoDB accepts — SELECT,
// INSERT, UPDATE, DELETE — parsed and translated into the expression language of the
// DynamoDB API (paths become #n placeholders, literals and `?` parameters :v placeholders),
// so that execute_statement.cc can run them as Query/Scan/PutItem/UpdateItem/DeleteItem
// with exactly those operations' semantics.
//
// Entry point: ParsePartiql.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/attribute_value.h"
#include "model/result.h"

namespace ddbd::server::ops {

// A condition as a DynamoDB expression, split into top-level AND terms: execution moves
// key equalities out of the filter.
struct PartiqlTerm {
  std::string text;                  // expression text over the statement's placeholders
  std::optional<std::string> path;   // for `path = value` terms: the attribute compared
  std::optional<std::string> value;  // … and the value placeholder it is compared with
  // The attribute a term constrains in a form a key condition accepts (=, <, <=, >, >=,
  // BETWEEN, begins_with, with the attribute on the left and values on the right).
  std::optional<std::string> key_condition_on;
};

struct PartiqlStatement {
  enum class Kind : uint8_t { kSelect, kInsert, kUpdate, kDelete };
  Kind kind = Kind::kSelect;
  std::string table;
  std::optional<std::string> index;  // SELECT … FROM "table"."index"
  std::string projection;            // SELECT's paths; empty for *
  std::vector<PartiqlTerm> where;    // ANDed
  std::optional<AttributeValue> item;  // INSERT's VALUE (parameters already substituted)
  std::string update;                // UPDATE's SET/REMOVE as an UpdateExpression
  std::string returning;             // ReturnValues for RETURNING, empty for none
  std::map<std::string, std::string> names;       // #n → attribute name
  std::map<std::string, AttributeValue> values;   // :v → value
};

// Parses `statement`, substituting `parameters` for its `?` markers in order.
// ValidationException for malformed statements and a parameter count that differs.
Result<PartiqlStatement> ParsePartiql(std::string_view statement,
                                      const std::vector<AttributeValue>& parameters);

}  // namespace ddbd::server::ops
