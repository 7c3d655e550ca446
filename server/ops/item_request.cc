// Shared request members of the single-item operations.
#include "server/ops/item_request.h"

#include "server/wire/attribute_value_json.h"

namespace ddbd::server::ops {

Result<std::optional<Item>> ReadAttributeMap(wire::JsonObject body, std::string_view member,
                                             std::string_view path,
                                             wire::ConstraintErrors& errors) {
  std::optional<wire::JsonValue> json = wire::Member(body, member);
  if (!json) {
    errors.NotNull(path);
    return std::optional<Item>();
  }
  DDBD_ASSIGN_OR_RETURN(Item map, wire::ParseAttributeMap(*json));
  return std::optional<Item>(std::move(map));
}

Status RejectExpressions(wire::JsonObject body,
                         std::initializer_list<std::string_view> expression_members) {
  for (auto member : expression_members) {
    if (wire::Member(body, member)) {
      return Error::Validation(std::string(member) +
                               " is not supported by this version of ddbd yet");
    }
  }
  for (auto legacy : {"Expected", "ConditionalOperator", "AttributesToGet"}) {
    if (wire::Member(body, legacy)) {
      return Error::Validation(std::string(legacy) +
                               " is not supported by this version of ddbd yet");
    }
  }
  // No expression is present from here on.
  if (wire::Member(body, "ExpressionAttributeNames")) {
    return Error::Validation(
        "ExpressionAttributeNames can only be specified when using expressions");
  }
  if (wire::Member(body, "ExpressionAttributeValues")) {
    std::vector<std::string_view> value_bearing;
    for (auto member : expression_members) {
      if (member != "ProjectionExpression") value_bearing.push_back(member);
    }
    std::string message =
        "ExpressionAttributeValues can only be specified when using expressions: ";
    for (size_t i = 0; i < value_bearing.size(); ++i) {
      if (i) message += " and ";
      message += value_bearing[i];
    }
    message += value_bearing.size() == 1 ? " is null" : " are null";
    return Error::Validation(message);
  }
  return OkStatus();
}

Result<storage::WriteOutcome> WriteOne(
    OpContext& ctx, const TableDef& table, PrimaryKey key,
    std::function<Result<std::optional<Item>>(const std::optional<Item>&)> compute,
    bool needs_old_item) {
  std::vector<storage::ItemWrite> writes;
  writes.push_back({&table, std::move(key), std::move(compute), needs_old_item});
  DDBD_ASSIGN_OR_RETURN(auto outcomes, ctx.db().WriteItems(std::move(writes)));
  return std::move(outcomes.front());
}

std::string RenderWriteResponse(std::string_view table_name, const storage::WriteOutcome& outcome,
                                ReturnValues return_values, CapacityDetail capacity) {
  wire::JsonWriter out;
  out.BeginObject();
  if (return_values == ReturnValues::kAllOld && outcome.old_item) {
    out.Key("Attributes");
    wire::WriteAttributeMap(out, *outcome.old_item);
  }
  if (capacity != CapacityDetail::kNone) {
    out.Key("ConsumedCapacity");
    WriteConsumedCapacity(out, capacity, table_name,
                          WriteUnits(outcome.old_size, outcome.new_size), true);
  }
  out.EndObject();
  return out.Take();
}

}  // namespace ddbd::server::ops
