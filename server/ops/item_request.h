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
                                             std::string_view path, wire::ConstraintErrors& errors);

// GetItem's members (also a transaction's Get action, without ConsistentRead).
struct GetRequest {
  std::string table_name;
  Item key;
  ExpressionInputs expressions;
  bool consistent_read = false;
  CapacityDetail capacity = CapacityDetail::kNone;
};
Result<GetRequest> ReadGetRequest(wire::JsonObject body);

// What GetItem read: the item as stored (rendered without being decoded unless a projection
// asks for part of it) and the read units it consumed.
struct GetOutput {
  std::optional<std::string> stored;
  double units = 0;
};
Result<GetOutput> ExecuteGetItem(OpContext& ctx, const GetRequest& in);
// DynamoDB's size of an item read as stored (0: no item), for its read units.
Result<size_t> StoredSize(const std::optional<std::string>& stored);
// The item GetItem read, decoded and unprojected; nullopt when there was none.
Result<std::optional<Item>> FoundItem(const GetOutput& output);
Result<std::string> RenderGetItem(const GetRequest& in, const GetOutput& output);

// The "Item" member of a read's response: `item`, projected when the request asks to.
void WriteFoundItem(wire::JsonWriter& out, const Item& item, const ExpressionInputs& expressions);
// An item read from storage, as a JSON object: rendered straight from its stored encoding,
// or decoded and projected when the request's projection asks for part of it.
Status WriteStoredItem(wire::JsonWriter& out, std::string_view stored,
                       const ExpressionInputs& expressions);

// The members of PutItem, DeleteItem and UpdateItem besides the item or key.
struct WriteRequest {
  std::string table_name;  // a name or an ARN, as the request gave it
  ExpressionInputs expressions;
  ReturnValues return_values = ReturnValues::kNone;
  bool return_old_on_condition_failure = false;  // ReturnValuesOnConditionCheckFailure=ALL_OLD
  CapacityDetail capacity = CapacityDetail::kNone;
  bool item_collection_metrics = false;  // ReturnItemCollectionMetrics=SIZE
};

// A single-item write, typed: PutItem, DeleteItem or UpdateItem, or a transaction's Put,
// Delete, Update or ConditionCheck action (which have the same members). What the wire codec
// reads (ParseItemWrite), PartiQL builds directly.
struct ItemWriteInput {
  enum class Kind : uint8_t { kPut, kDelete, kUpdate, kConditionCheck };
  Kind kind = Kind::kPut;
  Item item;  // kPut: the item; otherwise the key attributes
  WriteRequest request;
};

// Reads the request body of `kind` (TableName, Item or Key, the write options, and the
// expression members that kind accepts). Pure: no table is looked up.
Result<ItemWriteInput> ParseItemWrite(wire::JsonObject body, ItemWriteInput::Kind kind);

// ConditionalCheckFailedException unless the request's condition (if any) holds for the
// current item (an absent item is an empty one), carrying the item when asked to.
Status CheckWriteCondition(const WriteRequest& request, const std::optional<Item>& old);

// Whether a write of `request` takes its new image only from the request: it has no condition,
// and is a put (or delete) or an update whose every action SETs a value the request sent —
// no ADD, DELETE or REMOVE, no operand reading the item. Such a write after a read of the item
// can silently undo a concurrent change (insight/race_watch.h).
bool BlindWrite(const WriteRequest& request);

// What one item write consumed on the table and its indexes (index figures only when
// `detail` asks for capacity at all).
CapacityUse WriteCapacityUse(const TableDef& table, const storage::WriteOutcome& outcome,
                             CapacityDetail detail);

// A single-item write, validated against its table and ready to run: the table, the key, the
// request's options and the read-modify-write that applies it (its condition included).
struct PreparedWrite {
  std::shared_ptr<const TableDef> table;
  PrimaryKey key;
  std::shared_ptr<const WriteRequest> request;
  std::function<storage::Mutation(const std::optional<Item>&)> compute;
  bool needs_old_item = true;  // as storage::ItemWrite::needs_old_item
  bool check_only = false;     // a ConditionCheck: nothing is written
  storage::ItemWrite ToItemWrite() const;
};

// Looks the table up and checks the input against it (keys, index keys, vector attributes).
Result<PreparedWrite> PrepareItemWrite(OpContext& ctx, ItemWriteInput input);
// The same for one kind (put_item.cc, delete_item.cc, update_item.cc,
// transact_write_items.cc).
Result<PreparedWrite> PreparePut(OpContext& ctx, ItemWriteInput input);
// The rules a PutItem of `item` into `table` checks once the table is known (its key
// attributes, index key types, vector attributes); returns the item's key.
Result<PrimaryKey> CheckPutItem(const TableDef& table, const Item& item);
Result<PreparedWrite> PrepareDelete(OpContext& ctx, ItemWriteInput input);
Result<PreparedWrite> PrepareUpdate(OpContext& ctx, ItemWriteInput input);
Result<PreparedWrite> PrepareConditionCheck(OpContext& ctx, ItemWriteInput input);
// A write that stores `new_item` (nullopt deletes) under the request's condition.
PreparedWrite Replacing(std::shared_ptr<const TableDef> table, PrimaryKey key, WriteRequest request,
                        std::optional<Item> new_item);

// What a single-item write did, for its response.
struct WriteOutput {
  std::shared_ptr<const WriteRequest> request;
  std::shared_ptr<const TableDef> table;
  AttributeValue partition;
  storage::WriteOutcome outcome;
  std::optional<Item> attributes;  // what ReturnValues selects, if anything
};

// Runs one prepared write (the operation's Execute step).
Result<WriteOutput> ExecuteItemWrite(OpContext& ctx, PreparedWrite write);

// The response of a single-item write: Attributes, ConsumedCapacity (the table echoed as the
// request named it) and ItemCollectionMetrics.
std::string RenderWriteOutput(const WriteOutput& output);

// The writes of a multi-item operation (BatchWriteItem, TransactWriteItems) by table, for
// its response: the tables in the order of their first write, each named as the request
// named it, and for every write its table's position and its partition key.
struct MultiWrite {
  // Copies: the output outlives the request input the names were read from.
  std::vector<std::string> table_names;
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
