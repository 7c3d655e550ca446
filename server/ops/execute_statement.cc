// ExecuteStatement, BatchExecuteStatement and ExecuteTransaction: PartiQL statements run as
// the DynamoDB operations they amount to, through those operations' typed inputs (partiql/
// parses the statement into expression trees; nothing is written as text or parsed again).
// SELECT becomes a Query when its WHERE fixes the partition key by equality (Scan
// otherwise), or a GetItem in a batch or transaction; INSERT a PutItem that must not
// overwrite (DuplicateItemException); UPDATE and DELETE an UpdateItem/DeleteItem of the item
// the WHERE names by its whole key, which must exist. Every rule, limit and message of the
// operation applies.
#include <algorithm>

#include "expressions/evaluator.h"
#include "partiql/statement.h"
#include "server/ops/item_request.h"
#include "server/ops/ops.h"
#include "server/ops/read_pager.h"
#include "server/ops/transact_get_items.h"
#include "server/ops/transact_write_items.h"
#include "wire/attribute_value_json.h"
#include "wire/base64.h"

namespace ddbd::server::ops {
namespace {

using expressions::Condition;
using expressions::ExpressionKind;
using partiql::Statement;

constexpr size_t kMaxStatementLength = 8192;
constexpr size_t kMaxTokenLength = 36;

// ExecuteStatement's members (also one element of a batch or transaction).
struct ExecuteInput {
  std::string_view statement;
  std::vector<AttributeValue> parameters;
  bool consistent_read = false;
  std::optional<std::string_view> next_token;
  std::optional<int64_t> limit;
  CapacityDetail capacity = CapacityDetail::kNone;
  bool return_old_on_condition_failure = false;  // ReturnValuesOnConditionCheckFailure
};

Result<ExecuteInput> ReadExecute(wire::JsonObject body) {
  ExecuteInput in;
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(auto statement, wire::GetString(body, "Statement"));
  if (!statement) {
    errors.NotNull("statement");
  } else if (statement->empty()) {
    errors.LengthAtLeast(*statement, "statement", 1);
  } else if (statement->size() > kMaxStatementLength) {
    errors.LengthAtMost(*statement, "statement", kMaxStatementLength);
  }
  DDBD_ASSIGN_OR_RETURN(auto parameters, wire::GetArray(body, "Parameters"));
  if (parameters) {
    for (wire::JsonValue parameter : *parameters) {
      DDBD_ASSIGN_OR_RETURN(AttributeValue value, wire::ParseAttributeValue(parameter));
      in.parameters.push_back(std::move(value));
    }
    if (in.parameters.empty()) {
      errors.Add(std::nullopt, "parameters", "Member must have length greater than or equal to 1");
    }
  }
  DDBD_ASSIGN_OR_RETURN(auto consistent, wire::GetBool(body, "ConsistentRead"));
  in.consistent_read = consistent.value_or(false);
  DDBD_ASSIGN_OR_RETURN(in.next_token, wire::GetString(body, "NextToken"));
  DDBD_ASSIGN_OR_RETURN(in.limit, wire::GetLong(body, "Limit"));
  if (in.limit && *in.limit < 1) errors.ValueAtLeast(std::to_string(*in.limit), "limit", 1);
  DDBD_ASSIGN_OR_RETURN(in.capacity, ReadReturnConsumedCapacity(body, errors));
  DDBD_ASSIGN_OR_RETURN(auto on_failure, ReadEnum(body, "ReturnValuesOnConditionCheckFailure",
                                                  "returnValuesOnConditionCheckFailure",
                                                  {"ALL_OLD", "NONE"}, errors));
  in.return_old_on_condition_failure = on_failure == "ALL_OLD";
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  in.statement = *statement;
  return in;
}

// The key attribute names a statement's table (or index) is addressed by.
struct KeyNames {
  std::string partition;
  std::optional<std::string> sort;
  bool Names(const std::string& attribute) const {
    return attribute == partition || (sort && attribute == *sort);
  }
};

Result<KeyNames> KeysOf(OpContext& ctx, const Statement& st) {
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTable(st.table));
  KeyNames keys{table->partition_key.name,
                table->sort_key ? std::optional(table->sort_key->name) : std::nullopt};
  if (st.index) {
    const IndexDef* index = table->FindIndex(*st.index);
    if (!index || index->IsVector()) {
      return Error::Validation("The table does not have the specified index: " + *st.index);
    }
    keys.partition = index->partition_keys.size() == 1 ? index->partition_keys[0].name : "";
    keys.sort =
        index->sort_keys.size() == 1 ? std::optional(index->sort_keys[0].name) : std::nullopt;
  }
  return keys;
}

// Whether `condition` refers to one of the key attributes.
bool NamesKey(const Statement& st, const Condition& condition, const KeyNames& keys) {
  auto names_key = [&](const expressions::Operand& operand, auto& self) -> bool {
    if (operand.kind == expressions::Operand::Kind::kPath) {
      const std::string& placeholder = operand.path.elements[0].name;
      auto it = st.names.find(placeholder);
      if (it != st.names.end() && keys.Names(it->second)) return true;
    }
    return std::any_of(operand.args.begin(), operand.args.end(),
                       [&](const auto& arg) { return self(arg, self); });
  };
  for (const auto& operand : condition.operands) {
    if (names_key(operand, names_key)) return true;
  }
  return std::any_of(condition.children.begin(), condition.children.end(),
                     [&](const Condition& child) { return NamesKey(st, child, keys); });
}

// The expression inputs of a statement: its placeholders' names and values, and `trees`
// bound to them as the expression members they stand for (with those members' checks).
struct Trees {
  std::vector<Condition> key_condition, filter, condition;
  bool projection = false;
  bool update = false;
};

Result<ExpressionInputs> ExpressionsOf(const Statement& st, Trees trees) {
  ExpressionInputs in;
  in.bindings = expressions::Bindings(st.names, st.values);
  auto bind = [&](std::vector<Condition>& conditions, ExpressionKind kind,
                  std::shared_ptr<const Condition>& into) -> Status {
    if (conditions.empty()) return OkStatus();
    into = std::make_shared<const Condition>(partiql::AllOf(std::move(conditions)));
    return in.bindings.BindCondition(*into, kind);
  };
  DDBD_RETURN_IF_ERROR(bind(trees.key_condition, ExpressionKind::kKeyCondition, in.key_condition));
  DDBD_RETURN_IF_ERROR(bind(trees.filter, ExpressionKind::kFilter, in.filter));
  DDBD_RETURN_IF_ERROR(bind(trees.condition, ExpressionKind::kCondition, in.condition));
  if (trees.update && st.update) {
    in.update = std::make_shared<const expressions::UpdateExpression>(*st.update);
    DDBD_RETURN_IF_ERROR(in.bindings.BindUpdate(*in.update));
  }
  if (trees.projection && !st.projection.empty()) {
    expressions::ProjectionExpression projection{st.projection};
    DDBD_RETURN_IF_ERROR(in.bindings.BindProjection(projection));
    std::vector<expressions::ResolvedPath> paths;
    for (const auto& path : projection.paths) paths.push_back(in.bindings.Resolve(path));
    in.projection = std::move(paths);
  }
  return in;
}

// The item an UPDATE, DELETE or keyed SELECT names: equalities on every key attribute; the
// other terms become its condition.
struct KeyedTarget {
  Item key;
  std::vector<Condition> conditions;
};

Result<KeyedTarget> TargetOf(OpContext& ctx, const Statement& st) {
  DDBD_ASSIGN_OR_RETURN(KeyNames keys, KeysOf(ctx, st));
  KeyedTarget target;
  for (const auto& term : st.where) {
    if (term.equality_attribute && keys.Names(*term.equality_attribute) &&
        !target.key.count(*term.equality_attribute)) {
      target.key[*term.equality_attribute] = *term.equality_value;
    } else {
      target.conditions.push_back(term.condition);
    }
  }
  if (!target.key.count(keys.partition) || (keys.sort && !target.key.count(*keys.sort))) {
    return Error::Validation(
        "Where clause does not contain a mandatory equality on all key attributes");
  }
  return target;
}

// attribute_exists / attribute_not_exists of the partition key: an UPDATE or DELETE needs
// the item, an INSERT needs its absence.
Condition OnPartitionKey(Statement& st, const std::string& partition_key, bool exists) {
  Condition condition;
  condition.kind =
      exists ? Condition::Kind::kAttributeExists : Condition::Kind::kAttributeNotExists;
  expressions::Operand operand;
  operand.path.elements.push_back(
      {expressions::PathElement::Kind::kNamePlaceholder, st.NamePlaceholder(partition_key), 0});
  condition.operands.push_back(std::move(operand));
  return condition;
}

ReturnValues ReturnValuesOf(std::string_view returning) {
  if (returning == "ALL_OLD") return ReturnValues::kAllOld;
  if (returning == "ALL_NEW") return ReturnValues::kAllNew;
  if (returning == "UPDATED_OLD") return ReturnValues::kUpdatedOld;
  if (returning == "UPDATED_NEW") return ReturnValues::kUpdatedNew;
  return ReturnValues::kNone;
}

// The PutItem (a transaction's Put) of an INSERT, or the UpdateItem/DeleteItem (Update,
// Delete) of an UPDATE or DELETE.
Result<ItemWriteInput> WriteInputOf(OpContext& ctx, Statement st, const ExecuteInput& in) {
  ItemWriteInput input;
  input.request.table_name = st.table;
  input.request.capacity = in.capacity;
  input.request.return_old_on_condition_failure = in.return_old_on_condition_failure;
  Trees trees;
  if (st.kind == Statement::Kind::kInsert) {
    DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTable(st.table));
    input.kind = ItemWriteInput::Kind::kPut;
    input.item = std::move(*st.item);
    trees.condition.push_back(OnPartitionKey(st, table->partition_key.name, false));
  } else {
    DDBD_ASSIGN_OR_RETURN(KeyedTarget target, TargetOf(ctx, st));
    DDBD_ASSIGN_OR_RETURN(KeyNames keys, KeysOf(ctx, st));
    input.kind = st.kind == Statement::Kind::kUpdate ? ItemWriteInput::Kind::kUpdate
                                                     : ItemWriteInput::Kind::kDelete;
    input.item = std::move(target.key);
    input.request.return_values = ReturnValuesOf(st.returning);
    trees.condition.push_back(OnPartitionKey(st, keys.partition, true));
    for (Condition& condition : target.conditions) trees.condition.push_back(std::move(condition));
    trees.update = true;
  }
  DDBD_ASSIGN_OR_RETURN(input.request.expressions, ExpressionsOf(st, std::move(trees)));
  return input;
}

// The GetItem (a transaction's Get) of a SELECT that names one item by its key.
Result<GetRequest> GetInputOf(OpContext& ctx, const Statement& st, bool consistent) {
  if (st.index) return Error::Validation("Index reads are not allowed here: " + *st.index);
  DDBD_ASSIGN_OR_RETURN(KeyedTarget target, TargetOf(ctx, st));
  if (!target.conditions.empty()) {
    return Error::Validation("Only key equalities are allowed in the WHERE clause of this read");
  }
  GetRequest get;
  get.table_name = st.table;
  get.key = std::move(target.key);
  get.consistent_read = consistent;
  DDBD_ASSIGN_OR_RETURN(get.expressions, ExpressionsOf(st, Trees{.projection = true}));
  return get;
}

// ReadOptions of a SELECT as a Query (`key_condition` not empty) or a Scan.
Result<ReadOptions> ReadOptionsOf(const Statement& st, const ExecuteInput& in, Trees trees) {
  ReadOptions read;
  read.table_name = st.table;
  read.index_name = st.index;
  read.limit = in.limit;
  read.consistent_read = in.consistent_read;
  read.capacity = in.capacity;
  read.select = st.projection.empty() ? Select::kAllAttributes : Select::kSpecificAttributes;
  trees.projection = true;
  DDBD_ASSIGN_OR_RETURN(read.expressions, ExpressionsOf(st, std::move(trees)));
  return read;
}

Result<std::optional<Item>> StartKeyOf(const ExecuteInput& in) {
  if (!in.next_token) return std::optional<Item>();
  auto decoded = wire::Base64Decode(*in.next_token);
  simdjson::dom::parser parser;
  simdjson::dom::element start;
  if (!decoded.ok() || parser.parse(*decoded).get(start) != simdjson::SUCCESS) {
    return Error::Validation("Invalid NextToken");
  }
  DDBD_ASSIGN_OR_RETURN(Item key, wire::ParseAttributeMap(start));
  return std::optional<Item>(std::move(key));
}

double TotalUnits(const CapacityUse& use) {
  double units = use.table_units;
  for (const auto* indexes : {&use.global_indexes, &use.local_indexes}) {
    for (const auto& [name, index_units] : *indexes) units += index_units;
  }
  return units;
}

// SELECT: Query when a top-level `partition key = value` term exists (with one sort-key
// term of a key condition's shape, if any, in the key condition) and no other term names a
// key attribute (Query filters may not); else Scan with the whole condition.
Result<std::string> RunSelect(OpContext& ctx, const ExecuteInput& in, const Statement& st) {
  DDBD_ASSIGN_OR_RETURN(KeyNames keys, KeysOf(ctx, st));
  Trees trees;
  auto partition_term = std::find_if(st.where.begin(), st.where.end(), [&](const auto& term) {
    return !keys.partition.empty() && term.equality_attribute == keys.partition;
  });
  bool query = partition_term != st.where.end();
  if (query) {
    trees.key_condition.push_back(partition_term->condition);
    bool sort_taken = false;
    for (auto term = st.where.begin(); term != st.where.end() && query; ++term) {
      if (term == partition_term) continue;
      if (!sort_taken && keys.sort && term->key_condition_on == keys.sort) {
        trees.key_condition.push_back(term->condition);
        sort_taken = true;
      } else if (NamesKey(st, term->condition, keys)) {
        query = false;  // a filter may not name a key attribute: scan instead
      } else {
        trees.filter.push_back(term->condition);
      }
    }
  }
  if (!query) {
    trees = Trees{};
    for (const auto& term : st.where) trees.filter.push_back(term.condition);
  }
  DDBD_ASSIGN_OR_RETURN(ReadOptions read, ReadOptionsOf(st, in, std::move(trees)));
  DDBD_ASSIGN_OR_RETURN(std::optional<Item> start, StartKeyOf(in));
  PageOutput page;
  if (query) {
    QueryInput query_input{std::move(read), true, std::move(start)};
    DDBD_ASSIGN_OR_RETURN(page, ExecuteQuery(ctx, query_input));
  } else {
    ScanInput scan_input{std::move(read), 0, 1, std::move(start)};
    DDBD_ASSIGN_OR_RETURN(page, ExecuteScan(ctx, scan_input));
  }
  wire::JsonWriter out;
  out.BeginObject().Key("Items").BeginArray();
  DDBD_RETURN_IF_ERROR(WritePageItems(out, page.items));
  out.EndArray();
  if (page.last_evaluated_key) {
    wire::JsonWriter key;
    wire::WriteAttributeMap(key, *page.last_evaluated_key);
    const std::string key_json = key.Take();
    out.Key("NextToken").String(wire::Base64Encode(key_json));
    out.Key("LastEvaluatedKey").Raw(key_json);
  }
  if (in.capacity != CapacityDetail::kNone) {
    WriteConsumedCapacity(out.Key("ConsumedCapacity"), CapacityDetail::kTotal, st.table,
                          TotalUnits(page.use), false);
  }
  out.EndObject();
  return out.Take();
}

// INSERT, UPDATE and DELETE: no items or, with RETURNING, the returned attributes as the
// only one. An INSERT of an item that exists is a DuplicateItemException.
Result<std::string> RunWrite(OpContext& ctx, const ExecuteInput& in, Statement st) {
  const bool insert = st.kind == Statement::Kind::kInsert;
  const std::string table = st.table;
  DDBD_ASSIGN_OR_RETURN(ItemWriteInput input, WriteInputOf(ctx, std::move(st), in));
  DDBD_ASSIGN_OR_RETURN(PreparedWrite write, PrepareItemWrite(ctx, std::move(input)));
  Result<WriteOutput> output = ExecuteItemWrite(ctx, std::move(write));
  if (!output.ok()) {
    if (insert && output.error().code() == ErrorCode::kConditionalCheckFailed) {
      return Error::DuplicateItem();
    }
    return std::move(output).error();
  }
  wire::JsonWriter out;
  out.BeginObject().Key("Items").BeginArray();
  if (output->attributes) wire::WriteAttributeMap(out, *output->attributes);
  out.EndArray();
  if (in.capacity != CapacityDetail::kNone) {
    const CapacityUse use = WriteCapacityUse(*output->table, output->outcome, in.capacity);
    WriteConsumedCapacity(out.Key("ConsumedCapacity"), CapacityDetail::kTotal, table,
                          TotalUnits(use), true);
  }
  out.EndObject();
  return out.Take();
}

Result<std::string> RunStatement(OpContext& ctx, const ExecuteInput& in, Statement st) {
  if (st.kind == Statement::Kind::kSelect) return RunSelect(ctx, in, st);
  return RunWrite(ctx, in, std::move(st));
}

// One statement of ExecuteTransaction or BatchExecuteStatement, parsed.
struct ListedStatement {
  Statement statement;
  ExecuteInput options;
};

// The elements of `member` (TransactStatements, Statements): {Statement, Parameters, …},
// 1..`max` of them. A statement that does not parse is returned as its error when
// `keep_errors` (BatchExecuteStatement answers per statement), else fails the request.
Result<std::vector<Result<ListedStatement>>> ReadStatementList(wire::JsonObject body,
                                                               std::string_view member,
                                                               std::string_view path, size_t max,
                                                               bool keep_errors) {
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(auto list, wire::GetArray(body, member));
  std::vector<wire::JsonObject> elements;
  if (!list) {
    errors.NotNull(path);
  } else {
    for (wire::JsonValue element : *list) {
      DDBD_ASSIGN_OR_RETURN(wire::JsonObject object, wire::AsObject(element));
      elements.push_back(object);
    }
    if (elements.empty()) {
      errors.Add(std::nullopt, path, "Member must have length greater than or equal to 1");
    } else if (elements.size() > max) {
      errors.Add(std::nullopt, path,
                 "Member must have length less than or equal to " + std::to_string(max));
    }
  }
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  std::vector<Result<ListedStatement>> statements;
  for (wire::JsonObject element : elements) {
    DDBD_ASSIGN_OR_RETURN(ExecuteInput in, ReadExecute(element));
    auto parsed = partiql::Parse(in.statement, in.parameters);
    if (!parsed.ok()) {
      if (!keep_errors) return std::move(parsed).error();
      statements.push_back(std::move(parsed).error());
      continue;
    }
    statements.push_back(ListedStatement{std::move(*parsed), std::move(in)});
  }
  return statements;
}

bool IsRead(const Statement& statement) { return statement.kind == Statement::Kind::kSelect; }

// The TransactWriteItems of an ExecuteTransaction's writes; an INSERT whose item exists is
// a DuplicateItem reason, not a failed condition.
Result<std::string> RunWriteTransaction(OpContext& ctx, std::vector<ListedStatement> statements,
                                        CapacityDetail capacity) {
  TransactWriteInput transaction;
  transaction.capacity = capacity;
  std::vector<bool> inserts;
  for (ListedStatement& entry : statements) {
    if (!entry.statement.returning.empty()) {
      return Error::Validation("RETURNING is not allowed in a transaction");
    }
    inserts.push_back(entry.statement.kind == Statement::Kind::kInsert);
    ExecuteInput options;
    options.return_old_on_condition_failure = entry.options.return_old_on_condition_failure;
    DDBD_ASSIGN_OR_RETURN(ItemWriteInput action,
                          WriteInputOf(ctx, std::move(entry.statement), options));
    transaction.actions.push_back(std::move(action));
  }
  auto output = ExecuteTransactWriteItems(ctx, std::move(transaction));
  if (!output.ok() && output.error().code() == ErrorCode::kTransactionCanceled) {
    std::vector<CancellationReason> reasons = output.error().cancellation_reasons();
    for (size_t i = 0; i < reasons.size(); ++i) {
      if (inserts[i] && reasons[i].code == "ConditionalCheckFailed") {
        reasons[i] =
            CancellationReason{"DuplicateItem", "Duplicate primary key exists in table", nullptr};
      }
    }
    return Error::TransactionCanceled(std::move(reasons));
  }
  if (!output.ok()) return std::move(output).error();
  return RenderTransactWriteItems(*output);
}

}  // namespace

// ExecuteTransaction: only SELECTs (a TransactGetItems) or only writes (a
// TransactWriteItems, INSERTs reporting DuplicateItem where the item exists).
Result<std::string> ExecuteTransaction(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(auto listed, ReadStatementList(req.body, "TransactStatements",
                                                       "transactStatements", 100, false));
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(auto token, wire::GetString(req.body, "ClientRequestToken"));
  if (token && token->empty()) errors.LengthAtLeast(*token, "clientRequestToken", 1);
  if (token && token->size() > kMaxTokenLength) {
    errors.LengthAtMost(*token, "clientRequestToken", kMaxTokenLength);
  }
  DDBD_ASSIGN_OR_RETURN(CapacityDetail capacity, ReadReturnConsumedCapacity(req.body, errors));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  std::vector<ListedStatement> statements;
  for (auto& entry : listed) statements.push_back(std::move(*entry));
  const bool reads = IsRead(statements.front().statement);
  for (const auto& entry : statements) {
    if (IsRead(entry.statement) != reads) {
      return Error::Validation("A transaction must contain either only reads or only writes");
    }
  }
  if (reads) {
    TransactGetInput transaction;
    transaction.capacity = capacity;
    for (const ListedStatement& entry : statements) {
      DDBD_ASSIGN_OR_RETURN(GetRequest get, GetInputOf(ctx, entry.statement, false));
      transaction.gets.push_back(std::move(get));
    }
    DDBD_ASSIGN_OR_RETURN(TransactGetOutput output,
                          ExecuteTransactGetItems(ctx, std::move(transaction)));
    return RenderTransactGetItems(output);
  }
  std::optional<std::string> client_token;
  if (token) client_token = std::string(*token);
  return RunIdempotently(ctx, client_token, simdjson::minify(req.body),
                         [&] { return RunWriteTransaction(ctx, std::move(statements), capacity); });
}

namespace {

// A statement's own failure in BatchExecuteStatement's answer: its Error.Code.
std::optional<std::string_view> BatchErrorCode(const Error& error) {
  static constexpr std::pair<ErrorCode, std::string_view> kCodes[] = {
      {ErrorCode::kConditionalCheckFailed, "ConditionalCheckFailed"},
      {ErrorCode::kDuplicateItem, "DuplicateItem"},
      {ErrorCode::kValidation, "ValidationError"},
      {ErrorCode::kResourceNotFound, "ResourceNotFound"},
      {ErrorCode::kItemCollectionSizeLimitExceeded, "ItemCollectionSizeLimitExceeded"},
      // A statement throttled by --enforce-capacity.
      {ErrorCode::kProvisionedThroughputExceeded, "ProvisionedThroughputExceeded"},
      {ErrorCode::kThrottling, "ThrottlingError"},
  };
  for (const auto& [code, name] : kCodes) {
    if (code == error.code()) return name;
  }
  return std::nullopt;
}

// One statement of a batch: a read by key, or a write as ExecuteStatement runs it.
Result<std::optional<Item>> RunBatchStatement(OpContext& ctx, ListedStatement& entry) {
  const Statement& st = entry.statement;
  if (!IsRead(st)) {
    ExecuteInput options;
    options.return_old_on_condition_failure = entry.options.return_old_on_condition_failure;
    DDBD_RETURN_IF_ERROR(RunWrite(ctx, options, std::move(entry.statement)));
    return std::optional<Item>();
  }
  DDBD_ASSIGN_OR_RETURN(GetRequest get, GetInputOf(ctx, st, entry.options.consistent_read));
  DDBD_ASSIGN_OR_RETURN(GetOutput output, ExecuteGetItem(ctx, get));
  DDBD_ASSIGN_OR_RETURN(std::optional<Item> item, FoundItem(output));
  if (item && get.expressions.projection) {
    return std::optional<Item>(expressions::Project(*item, *get.expressions.projection));
  }
  return item;
}

}  // namespace

// BatchExecuteStatement: up to 25 statements, each answered on its own (no atomicity):
// SELECTs read one item by its key, writes run as ExecuteStatement would.
Result<std::string> BatchExecuteStatement(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(auto listed,
                        ReadStatementList(req.body, "Statements", "statements", 25, true));
  std::optional<bool> reads;
  for (const auto& entry : listed) {
    if (!entry.ok()) continue;
    if (reads && *reads != IsRead(entry->statement)) {
      return Error::Validation("A batch must contain either only reads or only writes");
    }
    reads = IsRead(entry->statement);
  }
  wire::JsonWriter out;
  out.BeginObject().Key("Responses").BeginArray();
  for (auto& entry : listed) {
    const std::string table = entry.ok() ? entry->statement.table : "";
    Result<std::optional<Item>> answer =
        entry.ok() ? RunBatchStatement(ctx, *entry) : Result<std::optional<Item>>(entry.error());
    out.BeginObject();
    if (entry.ok()) out.Key("TableName").String(table);
    if (answer.ok()) {
      if (*answer) {
        out.Key("Item");
        wire::WriteAttributeMap(out, **answer);
      }
    } else {
      const Error& error = answer.error();
      std::optional<std::string_view> code = BatchErrorCode(error);
      if (!code) return error;  // not the statement's own failure
      out.Key("Error").BeginObject().Key("Code").String(*code).Key("Message").String(
          error.message());
      if (error.item()) {
        out.Key("Item");
        wire::WriteAttributeMap(out, *error.item());
      }
      out.EndObject();
    }
    out.EndObject();
  }
  out.EndArray().EndObject();
  return out.Take();
}

Result<std::string> ExecuteStatement(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(ExecuteInput in, ReadExecute(req.body));
  DDBD_ASSIGN_OR_RETURN(Statement statement, partiql::Parse(in.statement, in.parameters));
  return RunStatement(ctx, in, std::move(statement));
}

}  // namespace ddbd::server::ops
