// TransactWriteItems: up to 100 Put, Update, Delete and ConditionCheck actions over one or
// more tables, all applied or none. Each action is validated like the single-item operation
// it names; then every item is locked and every condition evaluated in one storage call
// (Database::WriteItems), and a failure of any of them cancels the whole transaction with
// one CancellationReason per action.
#include <algorithm>
#include <set>

#include "server/ops/item_request.h"
#include "server/ops/ops.h"
#include "storage/key_codec.h"

namespace ddbd::server::ops {
namespace {

constexpr size_t kMaxActions = 100;
constexpr size_t kMaxTokenLength = 36;

struct TransactWriteInput {
  std::vector<wire::JsonObject> actions;
  std::optional<std::string_view> token;  // ClientRequestToken
  CapacityDetail capacity = CapacityDetail::kNone;
  bool item_collection_metrics = false;
};

Result<TransactWriteInput> ReadTransactWrite(wire::JsonObject body) {
  TransactWriteInput in;
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(auto items, wire::GetArray(body, "TransactItems"));
  DDBD_ASSIGN_OR_RETURN(in.capacity, ReadReturnConsumedCapacity(body, errors));
  DDBD_ASSIGN_OR_RETURN(in.item_collection_metrics, ReadReturnItemCollectionMetrics(body, errors));
  DDBD_ASSIGN_OR_RETURN(in.token, wire::GetString(body, "ClientRequestToken"));
  if (in.token && in.token->empty()) errors.LengthAtLeast(*in.token, "clientRequestToken", 1);
  if (in.token && in.token->size() > kMaxTokenLength) {
    errors.LengthAtMost(*in.token, "clientRequestToken", kMaxTokenLength);
  }
  if (!items) {
    errors.NotNull("transactItems");
  } else {
    for (wire::JsonValue item : *items) {
      DDBD_ASSIGN_OR_RETURN(wire::JsonObject action, wire::AsObject(item));
      in.actions.push_back(action);
    }
    if (in.actions.empty()) {
      errors.Add(std::nullopt, "transactItems", "Member must have length greater than or equal to 1");
    } else if (in.actions.size() > kMaxActions) {
      errors.Add(std::nullopt, "transactItems", "Member must have length less than or equal to 100");
    }
  }
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  return in;
}

// ConditionCheck: a key, a table and a condition that must hold; nothing is written.
Result<PreparedWrite> PrepareConditionCheck(OpContext& ctx, wire::JsonObject body, size_t position) {
  Item key_attributes;
  DDBD_ASSIGN_OR_RETURN(WriteRequest request,
                        ReadWriteRequest(body, "Key", "key", key_attributes,
                                         {.condition = true}, /*only_all_old=*/true));
  if (!request.expressions.condition) {
    wire::ConstraintErrors errors;
    errors.NotNull("transactItems." + std::to_string(position + 1) +
                   ".member.conditionCheck.conditionExpression");
    return errors.ToStatus().error();
  }
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTable(request.table_name));
  DDBD_ASSIGN_OR_RETURN(PrimaryKey key, KeyFromParameter(*table, key_attributes));
  PreparedWrite write = Replacing(std::move(table), std::move(key), std::move(request), std::nullopt);
  write.check_only = true;
  write.needs_old_item = true;
  return write;
}

// The action of one TransactItems element, which must name exactly one.
Result<PreparedWrite> PrepareAction(OpContext& ctx, wire::JsonObject element, size_t position) {
  DDBD_ASSIGN_OR_RETURN(auto check, wire::GetObject(element, "ConditionCheck"));
  DDBD_ASSIGN_OR_RETURN(auto put, wire::GetObject(element, "Put"));
  DDBD_ASSIGN_OR_RETURN(auto remove, wire::GetObject(element, "Delete"));
  DDBD_ASSIGN_OR_RETURN(auto update, wire::GetObject(element, "Update"));
  const int named = int{check.has_value()} + int{put.has_value()} + int{remove.has_value()} +
                    int{update.has_value()};
  if (named == 0) {
    return Error::Validation(
        "Invalid Request: TransactWriteRequest should contain Delete or Put or Update request");
  }
  if (named > 1) {
    return Error::Validation("TransactItems can only contain one of Check, Put, Update or Delete");
  }
  if (check) return PrepareConditionCheck(ctx, *check, position);
  if (put) return PreparePut(ctx, *put);
  if (remove) return PrepareDelete(ctx, *remove);
  return PrepareUpdate(ctx, *update);
}

// The reason an action's failure cancels the transaction with, or nullopt when the failure
// is not the action's own (storage errors end the request instead).
std::optional<CancellationReason> ReasonFor(const Error& error) {
  switch (error.code()) {
    case ErrorCode::kConditionalCheckFailed:
      return CancellationReason{"ConditionalCheckFailed", error.message(), error.item()};
    case ErrorCode::kValidation:
      return CancellationReason{"ValidationError", error.message(), nullptr};
    case ErrorCode::kItemCollectionSizeLimitExceeded:
      return CancellationReason{"ItemCollectionSizeLimitExceeded", error.message(), nullptr};
    default:
      return std::nullopt;
  }
}

// Validates and applies the transaction; its answer.
Result<std::string> RunTransaction(OpContext& ctx, const TransactWriteInput& in) {
  std::vector<PreparedWrite> prepared;
  for (size_t i = 0; i < in.actions.size(); ++i) {
    DDBD_ASSIGN_OR_RETURN(PreparedWrite write, PrepareAction(ctx, in.actions[i], i));
    prepared.push_back(std::move(write));
  }
  std::set<std::string> seen;
  for (const PreparedWrite& write : prepared) {
    if (!seen.insert(storage::ItemKey(write.table->id, write.key)).second) {
      return Error::Validation("Transaction request cannot include multiple operations on one item");
    }
  }

  // Every action's compute runs (so that every failed condition is reported); a failing one
  // records its reason and leaves its item as it is, and the verdict before the commit
  // cancels the transaction if any did.
  std::vector<CancellationReason> reasons(prepared.size());
  bool cancelled = false;
  MultiWrite multi;
  std::vector<storage::ItemWrite> writes;
  for (size_t i = 0; i < prepared.size(); ++i) {
    PreparedWrite& write = prepared[i];
    multi.table_of_write.push_back(multi.TableIndex(write.table, write.request->table_name));
    multi.partitions.push_back(write.key.partition);
    storage::ItemWrite item_write;
    item_write.table = write.table.get();
    item_write.key = write.key;
    item_write.needs_old_item = write.needs_old_item;
    item_write.check_only = write.check_only;
    item_write.compute = [&, i](const std::optional<Item>& old) -> Result<std::optional<Item>> {
      Result<std::optional<Item>> computed = prepared[i].compute(old);
      if (computed.ok()) return computed;
      std::optional<CancellationReason> reason = ReasonFor(computed.error());
      if (!reason) return computed;
      reasons[i] = std::move(*reason);
      cancelled = true;
      return old;
    };
    writes.push_back(std::move(item_write));
  }
  DDBD_ASSIGN_OR_RETURN(auto outcomes, ctx.db().WriteItems(std::move(writes), [&]() -> Status {
    if (cancelled) return Error::TransactionCanceled(reasons);
    return OkStatus();
  }));

  wire::JsonWriter out;
  out.BeginObject();
  // Transactional writes cost twice the units of plain ones.
  WriteMultiWriteMetrics(out, multi, outcomes, in.capacity, in.item_collection_metrics,
                         /*unit_factor=*/2);
  out.EndObject();
  return out.Take();
}

}  // namespace

Result<std::string> TransactWriteItems(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(TransactWriteInput in, ReadTransactWrite(req.body));
  if (!in.token) return RunTransaction(ctx, in);
  ClientTokens& tokens = ctx.service().client_tokens();
  const std::string scope(ctx.scope()), token(*in.token);
  DDBD_ASSIGN_OR_RETURN(std::optional<std::string> earlier,
                        tokens.Begin(scope, token, std::string(simdjson::minify(req.body))));
  if (earlier) return *earlier;
  Result<std::string> answer = RunTransaction(ctx, in);
  tokens.Finish(scope, token, answer.ok() ? std::optional<std::string>(*answer) : std::nullopt);
  return answer;
}

}  // namespace ddbd::server::ops
