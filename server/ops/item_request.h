// Request members shared by the single-item operations (PutItem, GetItem, DeleteItem):
// the parts of a request that select the table and shape the response.
#pragma once

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

// ReturnValuesOnConditionCheckFailure: true for ALL_OLD.
Result<bool> ReadReturnOldOnConditionFailure(wire::JsonObject body,
                                             wire::ConstraintErrors& errors);

// ConditionalCheckFailedException unless `expressions.condition` (if any) holds for the
// current item (an absent item is an empty one). With `return_old`, the error carries it.
Status CheckWriteCondition(const ExpressionInputs& expressions, const std::optional<Item>& old,
                           bool return_old);

// Runs one read-modify-write of a single item.
// `needs_old_item`: whether `compute` or the response needs the old item itself.
Result<storage::WriteOutcome> WriteOne(
    OpContext& ctx, const TableDef& table, PrimaryKey key,
    std::function<Result<std::optional<Item>>(const std::optional<Item>&)> compute,
    bool needs_old_item);

// The response of PutItem/DeleteItem/UpdateItem: the Attributes ReturnValues selected (if
// any) and ConsumedCapacity. `table_name` is echoed as the request gave it (a name or an
// ARN), as DynamoDB does.
std::string RenderWriteResponse(std::string_view table_name, const storage::WriteOutcome& outcome,
                                const std::optional<Item>& attributes, CapacityDetail capacity);

// Put and Delete return the old item for ALL_OLD and nothing otherwise.
std::optional<Item> OldItemIfAsked(ReturnValues return_values,
                                   const storage::WriteOutcome& outcome);

}  // namespace ddbd::server::ops
