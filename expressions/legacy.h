// DynamoDB's legacy (pre-expression) parameters — Expected, ConditionalOperator,
// AttributeUpdates, KeyConditions, QueryFilter, ScanFilter — translated into the same trees
// the expression parameters produce, with generated placeholders, so one evaluator serves
// both. Older SDK mappers still send them. The wire codec reads the members into the typed
// forms below; here they are checked (operators, value counts and types, in DynamoDB's
// order and words) and translated.
//
// Entry points: TranslateExpected, TranslateComparisons, TranslateAttributeUpdates.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "expressions/ast.h"
#include "expressions/bindings.h"
#include "model/attribute_value.h"
#include "model/result.h"

namespace ddbd::expressions::legacy {

// One attribute's entry of Expected, KeyConditions, QueryFilter or ScanFilter.
struct Comparison {
  std::string attribute;
  std::optional<std::string> op;        // ComparisonOperator
  bool has_value_list = false;          // AttributeValueList was given (even empty)
  std::vector<AttributeValue> values;   // AttributeValueList
  std::optional<AttributeValue> value;  // Expected only: Value
  std::optional<bool> exists;           // Expected only: Exists
};

// One attribute's entry of AttributeUpdates.
struct AttributeUpdate {
  std::string attribute;
  std::optional<std::string> action;  // PUT when absent
  std::optional<AttributeValue> value;
};

// Expected: per attribute either Value/Exists or ComparisonOperator/AttributeValueList,
// joined with AND (or OR). nullopt for an empty map: DynamoDB reads it as no condition.
Result<std::optional<Condition>> TranslateExpected(std::vector<Comparison> entries, bool use_or,
                                                   Bindings& bindings);

// KeyConditions, QueryFilter, ScanFilter: ComparisonOperator with AttributeValueList.
// `member`: the parameter's name as DynamoDB's envelope paths spell it ("scanFilter").
// nullopt for an empty map, as with Expected.
Result<std::optional<Condition>> TranslateComparisons(std::vector<Comparison> entries,
                                                      std::string_view member, bool use_or,
                                                      Bindings& bindings);

Result<UpdateExpression> TranslateAttributeUpdates(std::vector<AttributeUpdate> updates,
                                                   Bindings& bindings);

}  // namespace ddbd::expressions::legacy
