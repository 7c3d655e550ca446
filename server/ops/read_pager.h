// What Query and Scan share: Select/Limit/ConsistentRead/projection/filter members, and the
// page loop — items are evaluated in storage order until Limit items were evaluated or 1 MB
// was read (measured as DynamoDB measures item size, before filter and projection); the
// filter then decides which items are returned. Entry points: ReadReadOptions, ReadPage.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "model/table_def.h"
#include "server/op_context.h"
#include "server/ops/common.h"
#include "server/ops/expression_request.h"
#include "storage/database.h"

namespace ddbd::server::ops {

enum class Select : uint8_t {
  kAllAttributes,
  kAllProjectedAttributes,
  kSpecificAttributes,
  kCount
};

struct ReadOptions {
  std::string table_name;  // a name or an ARN, as the request gave it
  std::optional<std::string> index_name;
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

// With --gsi-lag-ms, what a read of `target` (a GSI) sees differently from storage now:
// entries written too recently to be visible, and the entries they replaced.
std::optional<storage::EntryOverlay> LaggedEntries(OpContext& ctx, const ReadTarget& target);

// An item a page returns: decoded (filtered, projected, fetched or overlaid), or, when
// returned whole and straight from storage, its stored encoding — rendered without being
// decoded (most reads: the per-byte cost of a Query or Scan).
using PageItem = std::variant<Item, std::string>;

// One page of a Query or Scan: the items returned (filtered and projected), the counts, where
// the next page starts, and what the read consumed.
struct PageOutput {
  std::vector<PageItem> items;  // empty for Select=COUNT
  int64_t count = 0;
  int64_t scanned = 0;
  uint64_t bytes_read = 0;  // the sizes of the items scanned, by DynamoDB's measure
  std::optional<Item> last_evaluated_key;
  CapacityUse use;
};

// Reads one page from `cursor`. `db` fetches whole items for LSI reads that need attributes
// the index does not project.
Result<PageOutput> ReadPage(storage::Database& db, const ReadTarget& target,
                            storage::ItemCursor& cursor, const ReadOptions& options);

// A page's items as a JSON array's elements (inside the caller's brackets). Fails only on a
// corrupt stored record.
Status WritePageItems(wire::JsonWriter& out, const std::vector<PageItem>& items);

// The JSON response of Query or Scan for a page.
Result<std::string> RenderPage(const PageOutput& page, const ReadOptions& options);

// Query and Scan as typed steps (query.cc, scan.cc), for their handlers and for PartiQL's
// SELECT. Execute resolves `in.read` (an index read's default Select) before reading.
struct QueryInput {
  ReadOptions read;
  bool forward = true;
  std::optional<Item> exclusive_start_key;
};
Result<QueryInput> ParseQuery(wire::JsonObject body);
Result<PageOutput> ExecuteQuery(OpContext& ctx, QueryInput& in);

struct ScanInput {
  ReadOptions read;
  int64_t segment = 0;
  int64_t total_segments = 1;
  std::optional<Item> exclusive_start_key;
};
Result<ScanInput> ParseScan(wire::JsonObject body);
Result<PageOutput> ExecuteScan(OpContext& ctx, ScanInput& in);

}  // namespace ddbd::server::ops
