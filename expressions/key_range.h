// Key-condition analysis: a bound KeyConditionExpression (or translated KeyConditions) turned
// into the partition a Query reads and the range of sort keys within it, with DynamoDB's rules
// and messages — every partition attribute compared with =, conditions on a leading run of the
// sort attributes, all = but the last (multi-attribute GSI keys have up to four of each;
// tables and LSIs one).
//
// Entry point: AnalyzeKeyCondition.
#pragma once

#include <functional>
#include <vector>

#include "expressions/ast.h"
#include "expressions/bindings.h"
#include "model/attribute_value.h"
#include "model/key_range.h"
#include "model/result.h"
#include "model/table_def.h"

namespace ddbd::expressions {

struct KeyRange {
  std::vector<AttributeValue> partition;          // one value per partition attribute
  std::vector<AttributeValue> sort_prefix;        // equalities on leading sort attributes
  SortKeyRange sort;                              // the condition on the next sort attribute
  std::vector<const Condition*> sort_conditions;  // each condition on a sort attribute
};

// An ExclusiveStartKey's checks, which DynamoDB interleaves with the key condition's: the
// attribute count once the conditions are read, then each key attribute in key order.
struct StartKeyChecks {
  std::function<Status()> size;
  std::function<Status(const KeyElement&)> element;
};

// REQUIRES: `key_condition` is bound to `bindings`. The range's conditions point into it.
Result<KeyRange> AnalyzeKeyCondition(const std::vector<KeyElement>& partition_keys,
                                     const std::vector<KeyElement>& sort_keys,
                                     const Condition& key_condition, const Bindings& bindings,
                                     const StartKeyChecks* start_key = nullptr);

}  // namespace ddbd::expressions
