// What the single-item operations share: the item/key members, the options that shape a
// write's response (ReturnValues, ReturnValuesOnConditionCheckFailure,
// ReturnConsumedCapacity, ReturnItemCollectionMetrics), the condition check, the
// read-modify-write call and the response.
#pragma once

#include <functional>
#include <optional>
#include <string_view>

#include "model/attribute_value.h"
#include "server/op_context.h"
#include "server/ops/common.h"
#include "server/ops/expression_request.h"
#include "storage/database.h"

namespace ddbd::server::ops {

// Reads a required attribute-map member (Item, Key): `path` is its envelope name.
Result<std::optional<Item>> ReadAttributeMap(wire::JsonObject body, std::string_view member,
                                             std::string_view path,
                                             wire::ConstraintErrors& errors);

// GetItem's members (also a transaction's Get action, without ConsistentRead).
struct GetRequest {
  std::string_view table_name;
  Item key;
  ExpressionInputs expressions;
  bool consistent_read = false;
  CapacityDetail capacity = CapacityDetail::kNone;
};
Result<GetRequest> ReadGetRequest(wire::JsonObject body);

// The "Item" member of a read's response: `item`, projected when the request asks to.
void WriteFoundItem(wire::JsonWriter& out, const Item& item, const ExpressionInputs& expressions);

// The members of PutItem, DeleteItem and UpdateItem besides the item or key.
struct WriteRequest {
  std::string_view table_name;
  ExpressionInputs expressions;
  ReturnValues return_values = ReturnValues::kNone;
  bool return_old_on_condition_failure = false;  // ReturnValuesOnConditionCheckFailure=ALL_OLD
  CapacityDetail capacity = CapacityDetail::kNone;
  bool item_collection_metrics = false;  // ReturnItemCollectionMetrics=SIZE
};

// Reads TableName, the item/key member `map_member` (into `map`) and the write options, then
// the expression members `expressions` accepts. `only_all_old`: PutItem and DeleteItem accept
// ReturnValues NONE and ALL_OLD only.
Result<WriteRequest> ReadWriteRequest(wire::JsonObject body, std::string_view map_member,
                                      std::string_view map_path, Item& map,
                                      const ExpressionMembers& expressions, bool only_all_old);

// ConditionalCheckFailedException unless the request's condition (if any) holds for the
// current item (an absent item is an empty one), carrying the item when asked to.
Status CheckWriteCondition(const WriteRequest& request, const std::optional<Item>& old);

// What one item write consumed on the table and its indexes (index figures only when
// `detail` asks for capacity at all).
CapacityUse WriteCapacityUse(const TableDef& table, const storage::WriteOutcome& outcome,
                             CapacityDetail detail);

// The response of a write: the Attributes ReturnValues selected (if any) and
// ConsumedCapacity, with the table echoed as the request named it (a name or an ARN).
std::string RenderWriteResponse(const WriteRequest& request, const TableDef& table,
                                const AttributeValue& partition,
                                const storage::WriteOutcome& outcome,
                                const std::optional<Item>& attributes);

// A single-item write, validated and ready to run: the table, the key, the request's
// options and the read-modify-write that applies it (its condition included). PutItem,
// DeleteItem and UpdateItem run one; TransactWriteItems runs several in one batch.
struct PreparedWrite {
  std::shared_ptr<const TableDef> table;
  PrimaryKey key;
  std::shared_ptr<const WriteRequest> request;
  std::function<storage::Mutation(const std::optional<Item>&)> compute;
  bool needs_old_item = true;  // as storage::ItemWrite::needs_old_item
  bool check_only = false;     // a ConditionCheck: nothing is written
};

// The request bodies of PutItem, DeleteItem and UpdateItem (also the Put, Delete and Update
// actions of a transaction, which have the same members).
Result<PreparedWrite> PreparePut(OpContext& ctx, wire::JsonObject body);
Result<PreparedWrite> PrepareDelete(OpContext& ctx, wire::JsonObject body);
Result<PreparedWrite> PrepareUpdate(OpContext& ctx, wire::JsonObject body);

// A write that stores `new_item` (nullopt deletes) under the request's condition.
PreparedWrite Replacing(std::shared_ptr<const TableDef> table, PrimaryKey key,
                        WriteRequest request, std::optional<Item> new_item);

// Runs one prepared write and renders its response.
Result<std::string> RunWrite(OpContext& ctx, PreparedWrite write);

// The writes of a multi-item operation (BatchWriteItem, TransactWriteItems) by table, for
// its response: the tables in the order of their first write, each named as the request
// named it, and for every write its table's position and its partition key.
struct MultiWrite {
  std::vector<std::string_view> table_names;
  std::vector<std::shared_ptr<const TableDef>> tables;
  std::vector<size_t> table_of_write;
  std::vector<AttributeValue> partitions;
  // The position of `table` (named `name` by the request), added when new.
  size_t TableIndex(std::shared_ptr<const TableDef> table, std::string_view name);
};

// ConsumedCapacity (one entry per table, units × `unit_factor`) and ItemCollectionMetrics
// (per table with LSIs) of a multi-item write, as members of the response object.
void WriteMultiWriteMetrics(wire::JsonWriter& out, const MultiWrite& writes,
                            const std::vector<storage::WriteOutcome>& outcomes,
                            CapacityDetail capacity, bool item_collection_metrics,
                            double unit_factor);

}  // namespace ddbd::server::ops
