// Shared request members of the single-item operations.
#include "server/ops/item_request.h"

#include "expressions/evaluator.h"
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

Result<bool> ReadReturnOldOnConditionFailure(wire::JsonObject body,
                                             wire::ConstraintErrors& errors) {
  DDBD_ASSIGN_OR_RETURN(auto value, ReadEnum(body, "ReturnValuesOnConditionCheckFailure",
                                             "returnValuesOnConditionCheckFailure",
                                             {"ALL_OLD", "NONE"}, errors));
  return value == "ALL_OLD";
}

Status CheckWriteCondition(const ExpressionInputs& expressions, const std::optional<Item>& old,
                           bool return_old) {
  if (!expressions.condition) return OkStatus();
  static const Item kAbsent;
  if (expressions::Matches(*expressions.condition, old ? *old : kAbsent, expressions.bindings)) {
    return OkStatus();
  }
  return Error::ConditionalCheckFailed(return_old && old ? std::make_shared<const Item>(*old)
                                                         : nullptr);
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

std::optional<Item> OldItemIfAsked(ReturnValues return_values,
                                   const storage::WriteOutcome& outcome) {
  if (return_values != ReturnValues::kAllOld) return std::nullopt;
  return outcome.old_item;
}

std::string RenderWriteResponse(std::string_view table_name, const storage::WriteOutcome& outcome,
                                const std::optional<Item>& attributes, CapacityDetail capacity) {
  wire::JsonWriter out;
  out.BeginObject();
  if (attributes) {
    out.Key("Attributes");
    wire::WriteAttributeMap(out, *attributes);
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
