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
  bool explicit_select = false;  // Select was in the request
  bool consistent_read = false;
  CapacityDetail capacity = CapacityDetail::kNone;
  ExpressionInputs expressions;
};

// Reads TableName, Limit, Select, ConsistentRead, ReturnConsumedCapacity and the expression
// members `accepted` names; checks Select against ProjectionExpression.
Result<ReadOptions> ReadReadOptions(wire::JsonObject body, const ExpressionMembers& accepted,
                                    wire::ConstraintErrors& errors);

// What a Query or Scan reads: the table itself or one of its secondary indexes.
struct ReadTarget {
  const TableDef* table = nullptr;
  const IndexDef* index = nullptr;  // null: the table
  // The key attributes, in key order (several for multi-attribute GSI keys).
  std::vector<KeyElement> partition_keys() const;
  std::vector<KeyElement> sort_keys() const;
};

// Resolves IndexName with DynamoDB's rules: the index must exist and be readable, GSIs
// allow no consistent reads and no Select=ALL_ATTRIBUTES unless they project everything,
// ALL_PROJECTED_ATTRIBUTES needs an index. Without Select or a projection, an index read
// returns the projected attributes (DynamoDB's default), so `options.select` is adjusted.
Result<ReadTarget> ResolveTarget(const TableDef& table, ReadOptions& options, bool query);

// ExclusiveStartKey checks, in DynamoDB's order (dynalite's actions/query.js and scan.js,
// recorded against DynamoDB): first the number of attributes, which must be that of the
// table key plus the index key (bare "The provided starting key is invalid", but for a Scan
// of the table "...: The provided key element does not match the schema"); then each key
// attribute of the target (CheckStartKeyElement); then the table key (StartKeyFor).
Status CheckStartKeySize(const ReadTarget& target, const Item& start_key, bool query);
// One key attribute of the index (or of the table a Query reads): missing gives the bare
// "The provided starting key is invalid", another type "The provided key element does not
// match the schema".
Status CheckStartKeyElement(const Item& start_key, const KeyElement& element);

// Where the read resumes after an ExclusiveStartKey whose target key attributes were checked:
// the table key must be present and valid ("The provided starting key is invalid: ...").
Result<storage::StartKey> StartKeyFor(const ReadTarget& target, const Item& start_key);

// One page of results as the JSON response of Query or Scan. `db` fetches whole items for
// LSI reads that need attributes the index does not project.
Result<std::string> ReadPage(storage::Database& db, const ReadTarget& target,
                             storage::ItemCursor& cursor, const ReadOptions& options);

}  // namespace ddbd::server::ops
