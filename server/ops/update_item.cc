// UpdateItem: change (or create) one item with an UpdateExpression, optionally under a
// ConditionExpression, returning the values ReturnValues asks for.
#include "expressions/evaluator.h"
#include "expressions/update.h"
#include "index/index_entries.h"
#include "index/vector_entries.h"
#include "server/ops/item_request.h"
#include "server/ops/ops.h"

namespace ddbd::server::ops {
namespace {

struct UpdateItemInput {
  Item key;
  WriteRequest request;
  const TableDef* table = nullptr;
};

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
  DDBD_RETURN_IF_ERROR(CheckWriteCondition(in.request, old));
  const ExpressionInputs& expressions = in.request.expressions;
  // A missing item is created from its key, as DynamoDB's UpdateItem does.
  const AttributeMap& base = old ? *old : static_cast<const AttributeMap&>(in.key);
  Item updated(base);
  if (expressions.update) {
    DDBD_ASSIGN_OR_RETURN(updated, expressions::ApplyUpdate(*expressions.update,
                                                            expressions.bindings, base));
  }
  if (ItemSize(updated) > kMaxItemBytes) {
    return Error::Validation("Item size to update has exceeded the maximum allowed size");
  }
  // Vector indexes check only the attributes this update changes (an item may carry an
  // invalid vector from before its index existed).
  auto changes = [&](std::string_view name) {
    auto before = base.find(name);
    auto after = updated.find(name);
    return after != updated.end() && (before == base.end() || !(before->second == after->second));
  };
  Status index_keys = index::CheckIndexKeys(*in.table, updated);
  if (index_keys.ok()) index_keys = index::CheckVectorAttributes(*in.table, updated, changes);
  if (!index_keys.ok()) {
    // An update that empties an index key is reported in terms of the update.
    if (index_keys.error().message().find("cannot contain an empty string value") !=
        std::string::npos) {
      return Error::Validation("One or more parameter values are not valid. The update "
                               "expression attempted to update a secondary index key to a value "
                               "that is not supported. The AttributeValue for a key attribute "
                               "cannot contain an empty string value.");
    }
    return std::move(index_keys).error();
  }
  return std::optional<Item>(std::move(updated));
}

// The attributes ReturnValues selects, or nullopt for none.
std::optional<Item> ReturnedAttributes(const WriteRequest& request,
                                       const storage::WriteOutcome& outcome) {
  std::vector<expressions::ResolvedPath> updated;
  if (request.expressions.update) {
    for (const auto& action : request.expressions.update->actions) {
      updated.push_back(request.expressions.bindings.Resolve(action.path));
    }
  }
  std::optional<Item> result;
  switch (request.return_values) {
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
  UpdateItemInput in;
  DDBD_ASSIGN_OR_RETURN(in.request, ReadWriteRequest(req.body, "Key", "key", in.key,
                                                     {.condition = true, .update = true},
                                                     /*only_all_old=*/false));
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTable(in.request.table_name));
  in.table = table.get();
  DDBD_ASSIGN_OR_RETURN(PrimaryKey key, KeyFromParameter(*table, in.key));
  DDBD_RETURN_IF_ERROR(CheckKeyNotUpdated(*table, in.request.expressions));
  const AttributeValue partition = key.partition;

  DDBD_ASSIGN_OR_RETURN(
      storage::WriteOutcome outcome,
      WriteOne(ctx, *table, std::move(key),
               [&in](const std::optional<Item>& old) { return ComputeUpdated(in, old); },
               /*needs_old_item=*/true));
  return RenderWriteResponse(in.request, *table, partition, outcome,
                             ReturnedAttributes(in.request, outcome));
}

}  // namespace ddbd::server::ops
