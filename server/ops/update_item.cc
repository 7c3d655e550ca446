// UpdateItem: change (or create) one item with an UpdateExpression, optionally under a
// ConditionExpression, returning the values ReturnValues asks for.
#include "expressions/evaluator.h"
#include "expressions/update.h"
#include "server/ops/item_request.h"
#include "server/ops/ops.h"

namespace ddbd::server::ops {
namespace {

struct UpdateItemInput {
  std::string_view table_name;
  Item key;
  ExpressionInputs expressions;
  ReturnValues return_values = ReturnValues::kNone;
  bool return_old_on_condition_failure = false;
  CapacityDetail capacity = CapacityDetail::kNone;
};

Result<UpdateItemInput> ParseUpdateItem(wire::JsonObject body) {
  UpdateItemInput in;
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(in.table_name, ReadTableName(body, errors));
  DDBD_ASSIGN_OR_RETURN(std::optional<Item> key, ReadAttributeMap(body, "Key", "key", errors));
  DDBD_ASSIGN_OR_RETURN(in.return_values, ReadReturnValues(body, errors));
  DDBD_ASSIGN_OR_RETURN(in.capacity, ReadReturnConsumedCapacity(body, errors));
  DDBD_ASSIGN_OR_RETURN(in.return_old_on_condition_failure,
                        ReadReturnOldOnConditionFailure(body, errors));
  DDBD_RETURN_IF_ERROR(ReadReturnItemCollectionMetrics(body, errors));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  DDBD_ASSIGN_OR_RETURN(in.expressions,
                        ReadExpressions(body, {.condition = true, .update = true}));
  in.key = std::move(*key);
  return in;
}

// DynamoDB refuses updates of key attributes, at the top level or inside them.
Status CheckKeyNotUpdated(const TableDef& table, const ExpressionInputs& expressions) {
  if (!expressions.update) return OkStatus();
  for (const auto& action : expressions.update->actions) {
    expressions::ResolvedPath path = expressions.bindings.Resolve(action.path);
    const std::string& name = path[0].name;
    if (name != table.partition_key.name && !(table.sort_key && name == table.sort_key->name)) {
      continue;
    }
    if (path.size() > 1) {
      return Error::Validation("Key attributes must be scalars; list random access '[]' and map "
                               "lookup '.' are not allowed: Key: " + name);
    }
    return Error::Validation("One or more parameter values were invalid: Cannot update attribute " +
                             name + ". This attribute is part of the key");
  }
  return OkStatus();
}

Result<std::optional<Item>> ComputeUpdated(const UpdateItemInput& in, const std::optional<Item>& old) {
  DDBD_RETURN_IF_ERROR(CheckWriteCondition(in.expressions, old, in.return_old_on_condition_failure));
  // A missing item is created from its key, as DynamoDB's UpdateItem does.
  const AttributeMap& base = old ? *old : static_cast<const AttributeMap&>(in.key);
  Item updated(base);
  if (in.expressions.update) {
    DDBD_ASSIGN_OR_RETURN(updated, expressions::ApplyUpdate(*in.expressions.update,
                                                            in.expressions.bindings, base));
  }
  if (ItemSize(updated) > kMaxItemBytes) {
    return Error::Validation("Item size to update has exceeded the maximum allowed size");
  }
  return std::optional<Item>(std::move(updated));
}

// The attributes ReturnValues selects, or nullopt for none.
std::optional<Item> ReturnedAttributes(const UpdateItemInput& in,
                                       const storage::WriteOutcome& outcome) {
  std::vector<expressions::ResolvedPath> updated;
  if (in.expressions.update) {
    for (const auto& action : in.expressions.update->actions) {
      updated.push_back(in.expressions.bindings.Resolve(action.path));
    }
  }
  std::optional<Item> result;
  switch (in.return_values) {
    case ReturnValues::kNone: break;
    case ReturnValues::kAllOld: result = outcome.old_item; break;
    case ReturnValues::kAllNew: result = outcome.new_item; break;
    case ReturnValues::kUpdatedOld:
      if (outcome.old_item) result = expressions::Project(*outcome.old_item, updated);
      break;
    case ReturnValues::kUpdatedNew:
      if (outcome.new_item) result = expressions::Project(*outcome.new_item, updated);
      break;
  }
  if (result && result->empty()) result.reset();
  return result;
}

}  // namespace

Result<std::string> UpdateItem(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(UpdateItemInput in, ParseUpdateItem(req.body));
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTable(in.table_name));
  DDBD_ASSIGN_OR_RETURN(PrimaryKey key, KeyFromParameter(*table, in.key));
  DDBD_RETURN_IF_ERROR(CheckKeyNotUpdated(*table, in.expressions));

  DDBD_ASSIGN_OR_RETURN(
      storage::WriteOutcome outcome,
      WriteOne(ctx, *table, std::move(key),
               [&in](const std::optional<Item>& old) { return ComputeUpdated(in, old); },
               /*needs_old_item=*/true));

  return RenderWriteResponse(in.table_name, outcome, ReturnedAttributes(in, outcome),
                             in.capacity);
}

}  // namespace ddbd::server::ops
