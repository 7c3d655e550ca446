// UpdateItem: change (or create) one item with an UpdateExpression, optionally under a
// ConditionExpression, returning the values ReturnValues asks for.
#include <algorithm>

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
      return Error::Validation(
          "Key attributes must be scalars; list random access '[]' and map "
          "lookup '.' are not allowed: Key: " +
          name);
    }
    return Error::Validation("One or more parameter values were invalid: Cannot update attribute " +
                             name + ". This attribute is part of the key");
  }
  return OkStatus();
}

bool OnlyRemoves(const expressions::UpdateExpression& update) {
  using Kind = expressions::UpdateAction::Kind;
  return !update.actions.empty() &&
         std::all_of(update.actions.begin(), update.actions.end(), [](const auto& action) {
           return action.kind == Kind::kRemove || action.kind == Kind::kDelete;
         });
}

Result<std::optional<Item>> ComputeUpdated(const UpdateItemInput& in,
                                           const std::optional<Item>& old) {
  DDBD_RETURN_IF_ERROR(CheckWriteCondition(in.request, old));
  const ExpressionInputs& expressions = in.request.expressions;
  // An update that only removes (REMOVE, DELETE from a set) leaves a missing item missing.
  // Pinned by: test_update_semantics.py::test_removing_from_a_missing_item_creates_nothing
  if (!old && expressions.update && OnlyRemoves(*expressions.update)) {
    return std::optional<Item>();
  }
  // Otherwise a missing item is created from its key, as DynamoDB's UpdateItem does (an
  // update without an expression included).
  const AttributeMap& base = old ? *old : static_cast<const AttributeMap&>(in.key);
  Item updated(base);
  if (expressions.update) {
    DDBD_ASSIGN_OR_RETURN(
        updated, expressions::ApplyUpdate(*expressions.update, expressions.bindings, base));
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
      return Error::Validation(
          "One or more parameter values are not valid. The update "
          "expression attempted to update a secondary index key to a value "
          "that is not supported. The AttributeValue for a key attribute "
          "cannot contain an empty string value.");
    }
    return std::move(index_keys).error();
  }
  return std::optional<Item>(std::move(updated));
}

}  // namespace

Result<PreparedWrite> PrepareUpdate(OpContext& ctx, ItemWriteInput input) {
  auto in = std::make_shared<UpdateItemInput>();
  in->key = std::move(input.item);
  in->request = std::move(input.request);
  PreparedWrite write;
  DDBD_ASSIGN_OR_RETURN(write.table, ctx.FindTable(in->request.table_name));
  in->table = write.table.get();
  DDBD_ASSIGN_OR_RETURN(write.key, KeyFromParameter(*write.table, in->key));
  DDBD_RETURN_IF_ERROR(CheckKeyNotUpdated(*write.table, in->request.expressions));
  write.request = std::shared_ptr<const WriteRequest>(in, &in->request);
  write.compute = [in =
                       std::shared_ptr<const UpdateItemInput>(in)](const std::optional<Item>& old) {
    return storage::Mutation::From(ComputeUpdated(*in, old));
  };
  return write;
}

Result<std::string> UpdateItem(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(ItemWriteInput input,
                        ParseItemWrite(req.body, ItemWriteInput::Kind::kUpdate));
  DDBD_ASSIGN_OR_RETURN(PreparedWrite write, PrepareUpdate(ctx, std::move(input)));
  DDBD_ASSIGN_OR_RETURN(WriteOutput output, ExecuteItemWrite(ctx, std::move(write)));
  return RenderWriteOutput(output);
}

}  // namespace ddbd::server::ops
