// Shared pieces of the single-item operations.
#include "server/ops/item_request.h"

#include <algorithm>

#include "expressions/evaluator.h"
#include "index/index_entries.h"
#include "index/vector_entries.h"
#include "server/ops/throttling.h"
#include "storage/stored_item.h"
#include "wire/attribute_value_json.h"

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

Result<GetRequest> ReadGetRequest(wire::JsonObject body) {
  GetRequest in;
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(in.table_name, ReadTableName(body, errors));
  DDBD_ASSIGN_OR_RETURN(std::optional<Item> key, ReadAttributeMap(body, "Key", "key", errors));
  DDBD_ASSIGN_OR_RETURN(std::optional<bool> consistent, wire::GetBool(body, "ConsistentRead"));
  DDBD_ASSIGN_OR_RETURN(in.capacity, ReadReturnConsumedCapacity(body, errors));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  DDBD_ASSIGN_OR_RETURN(in.expressions, ReadExpressions(body, {.projection = true}));
  in.key = std::move(*key);
  in.consistent_read = consistent.value_or(false);
  return in;
}

void WriteFoundItem(wire::JsonWriter& out, const Item& item, const ExpressionInputs& expressions) {
  out.Key("Item");
  if (expressions.projection) {
    wire::WriteAttributeMap(out, expressions::Project(item, *expressions.projection));
  } else {
    wire::WriteAttributeMap(out, item);
  }
}

Result<size_t> StoredSize(const std::optional<std::string>& stored) {
  if (!stored) return size_t{0};
  return storage::StoredItemSize(*stored);
}

Status WriteStoredItem(wire::JsonWriter& out, std::string_view stored,
                       const ExpressionInputs& expressions) {
  if (expressions.projection) {
    DDBD_ASSIGN_OR_RETURN(Item item, storage::DecodeStoredItem(stored));
    wire::WriteAttributeMap(out, expressions::Project(item, *expressions.projection));
    return OkStatus();
  }
  out.BeginObject();
  wire::JsonAttributeSink sink(out);
  DDBD_RETURN_IF_ERROR(storage::VisitStoredItem(stored, sink));
  out.EndObject();
  return OkStatus();
}

Result<ItemWriteInput> ParseItemWrite(wire::JsonObject body, ItemWriteInput::Kind kind) {
  using Kind = ItemWriteInput::Kind;
  ItemWriteInput input;
  input.kind = kind;
  WriteRequest& request = input.request;
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(request.table_name, ReadTableName(body, errors));
  const bool is_put = kind == Kind::kPut;
  DDBD_ASSIGN_OR_RETURN(
      std::optional<Item> parsed,
      ReadAttributeMap(body, is_put ? "Item" : "Key", is_put ? "item" : "key", errors));
  DDBD_ASSIGN_OR_RETURN(request.return_values, ReadReturnValues(body, errors));
  DDBD_ASSIGN_OR_RETURN(request.capacity, ReadReturnConsumedCapacity(body, errors));
  DDBD_ASSIGN_OR_RETURN(auto on_failure, ReadEnum(body, "ReturnValuesOnConditionCheckFailure",
                                                  "returnValuesOnConditionCheckFailure",
                                                  {"ALL_OLD", "NONE"}, errors));
  request.return_old_on_condition_failure = on_failure == "ALL_OLD";
  DDBD_ASSIGN_OR_RETURN(request.item_collection_metrics,
                        ReadReturnItemCollectionMetrics(body, errors));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  // PutItem and DeleteItem accept ReturnValues NONE and ALL_OLD only.
  if (kind != Kind::kUpdate && request.return_values != ReturnValues::kNone &&
      request.return_values != ReturnValues::kAllOld) {
    return Error::Validation("ReturnValues can only be ALL_OLD or NONE");
  }
  DDBD_ASSIGN_OR_RETURN(
      request.expressions,
      ReadExpressions(body, {.condition = true, .update = kind == Kind::kUpdate}));
  input.item = std::move(*parsed);
  return input;
}

Status CheckWriteCondition(const WriteRequest& request, const std::optional<Item>& old) {
  const ExpressionInputs& expressions = request.expressions;
  if (!expressions.condition) return OkStatus();
  static const Item kAbsent;
  if (expressions::Matches(*expressions.condition, old ? *old : kAbsent, expressions.bindings)) {
    return OkStatus();
  }
  return Error::ConditionalCheckFailed(request.return_old_on_condition_failure && old
                                           ? std::make_shared<const Item>(*old)
                                           : nullptr);
}

CapacityUse WriteCapacityUse(const TableDef& table, const storage::WriteOutcome& outcome,
                             CapacityDetail detail) {
  CapacityUse use;
  use.table_units = WriteUnits(outcome.old_size, outcome.new_size);
  if (detail == CapacityDetail::kNone) return use;
  // Storage hands back the old item of every write to an indexed table.
  index::IndexWriteUnits indexes =
      index::IndexWriteCapacity(table, outcome.old_item, outcome.new_item);
  use.global_indexes = std::move(indexes.global);
  use.local_indexes = std::move(indexes.local);
  if (detail == CapacityDetail::kIndexes && table.HasVectorIndexes()) {
    use.vector_bytes = index::VectorWriteBytes(table, outcome.old_item, outcome.new_item);
  }
  return use;
}

std::string RenderWriteOutput(const WriteOutput& output) {
  const WriteRequest& request = *output.request;
  wire::JsonWriter out;
  out.BeginObject();
  if (output.attributes) {
    out.Key("Attributes");
    wire::WriteAttributeMap(out, *output.attributes);
  }
  if (request.capacity != CapacityDetail::kNone) {
    out.Key("ConsumedCapacity");
    WriteConsumedCapacity(out, request.capacity, request.table_name,
                          WriteCapacityUse(*output.table, output.outcome, request.capacity), true);
  }
  if (request.item_collection_metrics && output.outcome.collection_size) {
    out.Key("ItemCollectionMetrics");
    WriteItemCollectionMetrics(out, *output.table, output.partition,
                               *output.outcome.collection_size);
  }
  out.EndObject();
  return out.Take();
}

PreparedWrite Replacing(std::shared_ptr<const TableDef> table, PrimaryKey key, WriteRequest request,
                        std::optional<Item> new_item) {
  PreparedWrite write;
  write.table = std::move(table);
  write.key = std::move(key);
  write.needs_old_item =
      request.return_values == ReturnValues::kAllOld || request.expressions.condition != nullptr;
  write.request = std::make_shared<const WriteRequest>(std::move(request));
  write.compute = [request = write.request,
                   item = std::move(new_item)](const std::optional<Item>& old) {
    Status condition = CheckWriteCondition(*request, old);
    if (!condition.ok()) return storage::Mutation::Fail(std::move(condition).error());
    return storage::Mutation::Store(item);
  };
  return write;
}

storage::ItemWrite PreparedWrite::ToItemWrite() const {
  storage::ItemWrite write;
  write.table = table.get();
  write.key = key;
  write.compute = compute;
  write.needs_old_item = needs_old_item;
  write.check_only = check_only;
  return write;
}

Result<PreparedWrite> PrepareItemWrite(OpContext& ctx, ItemWriteInput input) {
  switch (input.kind) {
    case ItemWriteInput::Kind::kPut:
      return PreparePut(ctx, std::move(input));
    case ItemWriteInput::Kind::kDelete:
      return PrepareDelete(ctx, std::move(input));
    case ItemWriteInput::Kind::kUpdate:
      return PrepareUpdate(ctx, std::move(input));
    case ItemWriteInput::Kind::kConditionCheck:
      return PrepareConditionCheck(ctx, std::move(input));
  }
  return Error::Internal();
}

namespace {

// The attributes the request's ReturnValues selects from a write's outcome, or nullopt.
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
    case ReturnValues::kNone:
      break;
    case ReturnValues::kAllOld:
      result = outcome.old_item;
      break;
    case ReturnValues::kAllNew:
      result = outcome.new_item;
      break;
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

bool BlindWrite(const WriteRequest& request) {
  if (request.expressions.condition) return false;
  if (!request.expressions.update) return true;
  return std::all_of(request.expressions.update->actions.begin(),
                     request.expressions.update->actions.end(), [](const auto& action) {
                       return action.kind == expressions::UpdateAction::Kind::kSet &&
                              action.value.kind == expressions::Operand::Kind::kValue;
                     });
}

Result<WriteOutput> ExecuteItemWrite(OpContext& ctx, PreparedWrite write) {
  WriteOutput output;
  output.partition = write.key.partition;
  std::vector<storage::ItemWrite> writes;
  writes.push_back(write.ToItemWrite());
  // Metered here, before the commit, so that a write failing its condition counts its units.
  auto verdict = [&ctx, &write](const std::vector<storage::WriteOutcome>& outcomes) -> Status {
    DDBD_RETURN_IF_ERROR(TakeWriteCapacity(ctx, {write.table.get()}, {write.key.partition},
                                           outcomes, /*transaction=*/false));
    MeterWrite(ctx, *write.table, write.key, outcomes.front(), /*factor=*/1,
               BlindWrite(*write.request));
    return OkStatus();
  };
  DDBD_ASSIGN_OR_RETURN(auto outcomes, ctx.db().WriteItems(std::move(writes), verdict));
  output.outcome = std::move(outcomes.front());
  output.attributes = ReturnedAttributes(*write.request, output.outcome);
  output.request = std::move(write.request);
  output.table = std::move(write.table);
  return output;
}

size_t MultiWrite::TableIndex(std::shared_ptr<const TableDef> table, std::string_view name) {
  for (size_t t = 0; t < tables.size(); ++t) {
    if (tables[t]->id == table->id) return t;
  }
  tables.push_back(std::move(table));
  table_names.emplace_back(name);
  return tables.size() - 1;
}

void WriteMultiWriteMetrics(wire::JsonWriter& out, const MultiWrite& writes,
                            const std::vector<storage::WriteOutcome>& outcomes,
                            CapacityDetail capacity, bool item_collection_metrics,
                            double unit_factor) {
  const auto& tables = writes.tables;
  if (capacity != CapacityDetail::kNone) {
    std::vector<CapacityUse> use(tables.size());
    for (size_t i = 0; i < outcomes.size(); ++i) {
      const size_t t = writes.table_of_write[i];
      use[t].Add(WriteCapacityUse(*tables[t], outcomes[i], capacity).Times(unit_factor));
    }
    out.Key("ConsumedCapacity").BeginArray();
    for (size_t t = 0; t < tables.size(); ++t) {
      WriteConsumedCapacity(out, capacity, writes.table_names[t], use[t], true);
    }
    out.EndArray();
  }
  if (!item_collection_metrics ||
      std::none_of(outcomes.begin(), outcomes.end(),
                   [](const auto& outcome) { return outcome.collection_size.has_value(); })) {
    return;
  }
  out.Key("ItemCollectionMetrics").BeginObject();
  for (size_t t = 0; t < tables.size(); ++t) {
    if (std::none_of(tables[t]->indexes.begin(), tables[t]->indexes.end(),
                     [](const IndexDef& i) { return i.local; })) {
      continue;
    }
    out.Key(writes.table_names[t]).BeginArray();
    for (size_t i = 0; i < outcomes.size(); ++i) {
      if (writes.table_of_write[i] != t || !outcomes[i].collection_size) continue;
      WriteItemCollectionMetrics(out, *tables[t], writes.partitions[i],
                                 *outcomes[i].collection_size);
    }
    out.EndArray();
  }
  out.EndObject();
}

}  // namespace ddbd::server::ops
