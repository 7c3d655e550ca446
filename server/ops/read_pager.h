// What Query and Scan share: Select/Limit/ConsistentRead/projection/filter members, and the
// page loop — items are evaluated in storage order until Limit items were evaluated or 1 MB
// was read (measured as DynamoDB measures item size, before filter and projection); the
// filter then decides which items are returned. Entry points: ReadReadOptions, ReadPage.
#pragma once

#include <optional>
#include <string_view>

#include "model/table_def.h"
#include "server/ops/common.h"
#include "server/ops/expression_request.h"
#include "storage/database.h"

namespace ddbd::server::ops {

enum class Select : uint8_t { kAllAttributes, kAllProjectedAttributes, kSpecificAttributes, kCount };

struct ReadOptions {
  std::string_view table_name;
  std::optional<std::string_view> index_name;
  std::optional<int64_t> limit;
  Select select = Select::kAllAttributes;
  bool consistent_read = false;
  CapacityDetail capacity = CapacityDetail::kNone;
  ExpressionInputs expressions;
};

// Reads TableName, Limit, Select, ConsistentRead, ReturnConsumedCapacity and the expression
// members `accepted` names; checks Select against ProjectionExpression.
Result<ReadOptions> ReadReadOptions(wire::JsonObject body, const ExpressionMembers& accepted,
                                    wire::ConstraintErrors& errors);

// The index a Query or Scan names must exist on the table (tables have no secondary indexes
// yet, so any IndexName is refused with DynamoDB's message).
Status CheckIndex(const TableDef& table, const ReadOptions& options);

// The storage key of an ExclusiveStartKey, which must be a key of `table`.
Result<std::string> StartKeyFor(const TableDef& table, const Item& start_key);

// One page of results as the JSON response of Query or Scan.
Result<std::string> ReadPage(const TableDef& table, storage::ItemCursor& cursor,
                             const ReadOptions& options);

}  // namespace ddbd::server::ops
