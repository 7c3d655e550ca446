// Request members shared by the single-item operations (PutItem, GetItem, DeleteItem):
// the parts of a request that select the table and shape the response.
#pragma once

#include <optional>
#include <string_view>

#include "model/attribute_value.h"
#include "server/op_context.h"
#include "server/ops/common.h"
#include "storage/database.h"

namespace ddbd::server::ops {

// Reads a required attribute-map member (Item, Key): `path` is its envelope name.
Result<std::optional<Item>> ReadAttributeMap(wire::JsonObject body, std::string_view member,
                                             std::string_view path,
                                             wire::ConstraintErrors& errors);

// Expression parameters arrive with the expression engine; until then a request that uses
// them is refused instead of being half-applied. ExpressionAttributeNames/Values without any
// expression get DynamoDB's own error.
Status RejectExpressions(wire::JsonObject body,
                         std::initializer_list<std::string_view> expression_members);

// Runs one read-modify-write of a single item.
// `needs_old_item`: whether `compute` or the response needs the old item itself.
Result<storage::WriteOutcome> WriteOne(
    OpContext& ctx, const TableDef& table, PrimaryKey key,
    std::function<Result<std::optional<Item>>(const std::optional<Item>&)> compute,
    bool needs_old_item);

// The response of PutItem/DeleteItem/UpdateItem: Attributes per ReturnValues (ALL_OLD here)
// and ConsumedCapacity.
// `table_name` is echoed as the request gave it (a name or an ARN), as DynamoDB does.
std::string RenderWriteResponse(std::string_view table_name, const storage::WriteOutcome& outcome,
                                ReturnValues return_values, CapacityDetail capacity);

}  // namespace ddbd::server::ops
