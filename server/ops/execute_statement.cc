// ExecuteStatement: one PartiQL statement, run as the DynamoDB operation it amounts to.
// SELECT becomes a Query when its WHERE fixes the partition key by equality (Scan
// otherwise), INSERT a PutItem that must not overwrite (DuplicateItemException), UPDATE and
// DELETE an UpdateItem/DeleteItem of the item the WHERE names by its whole key, which must
// exist. The statement is translated (partiql.h) and handed to the operation as the request
// an SDK would send, so every rule, limit and message of that operation applies.
#include <algorithm>
#include <cctype>
#include <functional>

#include "server/ops/common.h"
#include "server/ops/ops.h"
#include "server/ops/partiql.h"
#include "server/wire/attribute_value_json.h"
#include "server/wire/base64.h"

namespace ddbd::server::ops {
namespace {

constexpr size_t kMaxStatementLength = 8192;

struct ExecuteInput {
  std::string_view statement;
  std::vector<AttributeValue> parameters;
  bool consistent_read = false;
  std::optional<std::string_view> next_token;
  std::optional<int64_t> limit;
  std::optional<std::string_view> capacity;    // ReturnConsumedCapacity, passed on
  std::optional<std::string_view> on_failure;  // ReturnValuesOnConditionCheckFailure
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
  DDBD_ASSIGN_OR_RETURN(in.capacity, ReadEnum(body, "ReturnConsumedCapacity", "returnConsumedCapacity",
                                              {"INDEXES", "TOTAL", "NONE"}, errors));
  DDBD_ASSIGN_OR_RETURN(in.on_failure, ReadEnum(body, "ReturnValuesOnConditionCheckFailure",
                                                "returnValuesOnConditionCheckFailure",
                                                {"ALL_OLD", "NONE"}, errors));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  in.statement = *statement;
  return in;
}

// Whether `placeholder` occurs in `text` as a whole token (":v1" is not in ":v10").
bool Mentions(std::string_view text, std::string_view placeholder) {
  for (size_t at = text.find(placeholder); at != std::string_view::npos;
       at = text.find(placeholder, at + 1)) {
    const size_t end = at + placeholder.size();
    if (end == text.size() || !(std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) {
      return true;
    }
  }
  return false;
}

// The request an SDK would send, under construction.
class InnerRequest {
 public:
  explicit InnerRequest(std::string_view table) {
    out_.BeginObject().Key("TableName").String(table);
  }
  wire::JsonWriter& out() { return out_; }
  void Expression(std::string_view member, const std::string& text) {
    if (text.empty()) return;
    out_.Key(member).String(text);
    expressions_ += text + " ";
  }
  // The statement's placeholders that the expressions written so far use, with `extra`
  // names the translation itself added.
  std::string Finish(const PartiqlStatement& statement,
                     const std::map<std::string, std::string>& extra = {}) {
    bool any = false;
    for (const auto* names : {&statement.names, &extra}) {
      for (const auto& [placeholder, name] : *names) {
        if (!Mentions(expressions_, placeholder)) continue;
        if (!any) out_.Key("ExpressionAttributeNames").BeginObject();
        any = true;
        out_.Key(placeholder).String(name);
      }
    }
    if (any) out_.EndObject();
    any = false;
    for (const auto& [placeholder, value] : statement.values) {
      if (!Mentions(expressions_, placeholder)) continue;
      if (!any) out_.Key("ExpressionAttributeValues").BeginObject();
      any = true;
      out_.Key(placeholder);
      wire::WriteAttributeValue(out_, value);
    }
    if (any) out_.EndObject();
    out_.EndObject();
    return out_.Take();
  }

 private:
  wire::JsonWriter out_;
  std::string expressions_;
};

// Runs `handler` on the request `json`; its response parsed.
Result<std::string> Call(OpContext& ctx, Result<std::string> (*handler)(OpContext&, const Request&),
                         std::string json) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(json).get(root) != simdjson::SUCCESS) return Error::Internal();
  simdjson::dom::object body;
  if (root.get_object().get(body) != simdjson::SUCCESS) return Error::Internal();
  return handler(ctx, Request{body});
}

void PassOptions(const ExecuteInput& in, wire::JsonWriter& out) {
  if (in.capacity) out.Key("ReturnConsumedCapacity").String(*in.capacity);
  if (in.on_failure) out.Key("ReturnValuesOnConditionCheckFailure").String(*in.on_failure);
}

// The key attribute names a statement's table (or index) is addressed by.
struct KeyNames {
  std::string partition;
  std::optional<std::string> sort;
};

Result<KeyNames> KeysOf(OpContext& ctx, const PartiqlStatement& statement) {
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTable(statement.table));
  KeyNames keys{table->partition_key.name,
                table->sort_key ? std::optional(table->sort_key->name) : std::nullopt};
  if (statement.index) {
    const IndexDef* index = table->FindIndex(*statement.index);
    if (!index || index->IsVector()) {
      return Error::Validation("The table does not have the specified index: " + *statement.index);
    }
    keys.partition = index->partition_keys.size() == 1 ? index->partition_keys[0].name : "";
    keys.sort = index->sort_keys.size() == 1 ? std::optional(index->sort_keys[0].name) : std::nullopt;
  }
  return keys;
}

bool NamesKey(const PartiqlStatement& statement, const std::string& text, const KeyNames& keys) {
  for (const auto& [placeholder, name] : statement.names) {
    if ((name == keys.partition || name == keys.sort) && Mentions(text, placeholder)) return true;
  }
  return false;
}

// SELECT: Query when a top-level `partition key = value` term exists (with one sort-key
// term of a key condition's shape, if any, in the key condition) and no other term names a
// key attribute (Query filters may not); else Scan with the whole condition.
Result<std::string> RunSelect(OpContext& ctx, const ExecuteInput& in, const PartiqlStatement& st) {
  DDBD_ASSIGN_OR_RETURN(KeyNames keys, KeysOf(ctx, st));
  std::string key_condition, filter;
  bool query = false;
  for (const auto& term : st.where) {
    if (!query && term.path && *term.path == keys.partition && !keys.partition.empty()) {
      key_condition = term.text;
      query = true;
    }
  }
  if (query) {
    bool sort_taken = false;
    for (const auto& term : st.where) {
      if (term.text == key_condition) continue;
      if (!sort_taken && term.key_condition_on && keys.sort && *term.key_condition_on == *keys.sort) {
        key_condition += " AND " + term.text;
        sort_taken = true;
      } else if (NamesKey(st, term.text, keys)) {
        query = false;
      } else {
        filter += (filter.empty() ? "" : " AND ") + term.text;
      }
    }
  }
  if (!query) {
    key_condition.clear();
    filter.clear();
    for (const auto& term : st.where) filter += (filter.empty() ? "" : " AND ") + term.text;
  }
  InnerRequest request(st.table);
  if (st.index) request.out().Key("IndexName").String(*st.index);
  if (in.consistent_read) request.out().Key("ConsistentRead").Bool(true);
  if (in.limit) request.out().Key("Limit").Int(*in.limit);
  if (in.next_token) {
    auto decoded = wire::Base64Decode(*in.next_token);
    simdjson::dom::parser parser;
    simdjson::dom::element start;
    if (!decoded.ok() || parser.parse(*decoded).get(start) != simdjson::SUCCESS) {
      return Error::Validation("Invalid NextToken");
    }
    DDBD_ASSIGN_OR_RETURN(Item key, wire::ParseAttributeMap(start));
    request.out().Key("ExclusiveStartKey");
    wire::WriteAttributeMap(request.out(), key);
  }
  PassOptions(in, request.out());
  request.Expression("KeyConditionExpression", key_condition);
  request.Expression("FilterExpression", filter);
  request.Expression("ProjectionExpression", st.projection);
  DDBD_ASSIGN_OR_RETURN(std::string answer,
                        Call(ctx, query ? ops::Query : ops::Scan, request.Finish(st)));

  // Items, NextToken (the LastEvaluatedKey, opaque) and ConsumedCapacity, re-rendered.
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(answer).get(root) != simdjson::SUCCESS) return Error::Internal();
  wire::JsonWriter out;
  out.BeginObject().Key("Items").BeginArray();
  // The operation's own output is valid DynamoDB JSON: items and keys are copied as they are.
  simdjson::dom::array items;
  if (root["Items"].get_array().get(items) == simdjson::SUCCESS) {
    for (simdjson::dom::element item : items) out.Raw(simdjson::minify(item));
  }
  out.EndArray();
  simdjson::dom::element last;
  if (root["LastEvaluatedKey"].get(last) == simdjson::SUCCESS) {
    const std::string key = simdjson::minify(last);
    out.Key("NextToken").String(wire::Base64Encode(key));
    out.Key("LastEvaluatedKey").Raw(key);
  }
  simdjson::dom::object capacity;
  if (root["ConsumedCapacity"].get_object().get(capacity) == simdjson::SUCCESS) {
    double units = 0;
    if (capacity["CapacityUnits"].get_double().get(units) != simdjson::SUCCESS) units = 0;
    WriteConsumedCapacity(out.Key("ConsumedCapacity"), CapacityDetail::kTotal, st.table, units,
                          false);
  }
  out.EndObject();
  return out.Take();
}

// The key an UPDATE or DELETE names: equalities on every key attribute; the other terms
// become its condition, together with the item's existence.
struct KeyedTarget {
  AttributeMap key;
  std::string condition;
};

Result<KeyedTarget> TargetOf(OpContext& ctx, const PartiqlStatement& st) {
  DDBD_ASSIGN_OR_RETURN(KeyNames keys, KeysOf(ctx, st));
  KeyedTarget target;
  std::string partition_placeholder;
  for (const auto& term : st.where) {
    const bool is_key = term.path && (*term.path == keys.partition || *term.path == keys.sort) &&
                        !target.key.count(*term.path);
    if (is_key) {
      target.key[*term.path] = st.values.at(*term.value);
    } else {
      target.condition += (target.condition.empty() ? "" : " AND ") + term.text;
    }
  }
  if (!target.key.count(keys.partition) || (keys.sort && !target.key.count(*keys.sort))) {
    return Error::Validation("Where clause does not contain a mandatory equality on all key attributes");
  }
  for (const auto& [placeholder, name] : st.names) {
    if (name == keys.partition) partition_placeholder = placeholder;
  }
  // The partition key's placeholder exists: the WHERE named it.
  const std::string exists = "attribute_exists(" + partition_placeholder + ")";
  target.condition = target.condition.empty() ? exists : exists + " AND (" + target.condition + ")";
  return target;
}

// The UpdateItem/DeleteItem request (or transaction action) of an UPDATE or DELETE.
Result<std::string> KeyedWriteRequest(OpContext& ctx, const PartiqlStatement& st,
                                      const std::function<void(wire::JsonWriter&)>& options) {
  DDBD_ASSIGN_OR_RETURN(KeyedTarget target, TargetOf(ctx, st));
  InnerRequest request(st.table);
  request.out().Key("Key");
  wire::WriteAttributeMap(request.out(), target.key);
  if (!st.returning.empty()) request.out().Key("ReturnValues").String(st.returning);
  options(request.out());
  request.Expression("UpdateExpression", st.update);
  request.Expression("ConditionExpression", target.condition);
  return request.Finish(st);
}

// The PutItem request (or transaction action) of an INSERT: it must not overwrite.
Result<std::string> InsertRequest(OpContext& ctx, const PartiqlStatement& st,
                                  const std::function<void(wire::JsonWriter&)>& options) {
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTable(st.table));
  InnerRequest request(st.table);
  request.out().Key("Item");
  wire::WriteAttributeMap(request.out(), st.item->map());
  options(request.out());
  request.Expression("ConditionExpression", "attribute_not_exists(#pk)");
  return request.Finish(st, {{"#pk", table->partition_key.name}});
}

// The GetItem request (or transaction Get) of a SELECT that names one item by its key.
Result<std::string> GetRequest(OpContext& ctx, const PartiqlStatement& st, bool consistent) {
  if (st.index) return Error::Validation("Index reads are not allowed here: " + *st.index);
  DDBD_ASSIGN_OR_RETURN(KeyedTarget target, TargetOf(ctx, st));
  if (target.condition.find(" AND ") != std::string::npos) {
    return Error::Validation("Only key equalities are allowed in the WHERE clause of this read");
  }
  InnerRequest request(st.table);
  request.out().Key("Key");
  wire::WriteAttributeMap(request.out(), target.key);
  if (consistent) request.out().Key("ConsistentRead").Bool(true);
  request.Expression("ProjectionExpression", st.projection);
  return request.Finish(st);
}

Result<wire::JsonValue> ParseAnswer(simdjson::dom::parser& parser, const std::string& answer) {
  simdjson::dom::element root;
  if (parser.parse(answer).get(root) != simdjson::SUCCESS) return Error::Internal();
  return root;
}

// UPDATE and DELETE: no items or, with RETURNING, the returned attributes as the only one.
Result<std::string> RunKeyedWrite(OpContext& ctx, const ExecuteInput& in, const PartiqlStatement& st) {
  DDBD_ASSIGN_OR_RETURN(std::string request,
                        KeyedWriteRequest(ctx, st, [&](wire::JsonWriter& out) { PassOptions(in, out); }));
  const bool update = st.kind == PartiqlStatement::Kind::kUpdate;
  DDBD_ASSIGN_OR_RETURN(std::string answer,
                        Call(ctx, update ? ops::UpdateItem : ops::DeleteItem, std::move(request)));
  simdjson::dom::parser parser;
  DDBD_ASSIGN_OR_RETURN(wire::JsonValue root, ParseAnswer(parser, answer));
  // Writes answer with an empty Items list, or the attributes RETURNING selects.
  wire::JsonWriter out;
  out.BeginObject().Key("Items").BeginArray();
  simdjson::dom::element attributes;
  if (!st.returning.empty() && root["Attributes"].get(attributes) == simdjson::SUCCESS) {
    out.Raw(simdjson::minify(attributes));
  }
  out.EndArray().EndObject();
  return out.Take();
}

Result<std::string> RunInsert(OpContext& ctx, const ExecuteInput& in, const PartiqlStatement& st) {
  DDBD_ASSIGN_OR_RETURN(std::string request,
                        InsertRequest(ctx, st, [&](wire::JsonWriter& out) { PassOptions(in, out); }));
  auto answer = Call(ctx, ops::PutItem, std::move(request));
  if (!answer.ok() && answer.error().code() == ErrorCode::kConditionalCheckFailed) {
    return Error::DuplicateItem();
  }
  if (!answer.ok()) return std::move(answer).error();
  return std::string("{\"Items\":[]}");
}

// One statement of ExecuteTransaction or BatchExecuteStatement, parsed.
struct ListedStatement {
  PartiqlStatement statement;
  bool consistent_read = false;
  std::optional<std::string_view> on_failure;
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
    auto parsed = ParsePartiql(in.statement, in.parameters);
    if (!parsed.ok()) {
      if (!keep_errors) return std::move(parsed).error();
      statements.push_back(std::move(parsed).error());
      continue;
    }
    statements.push_back(ListedStatement{std::move(*parsed), in.consistent_read, in.on_failure});
  }
  return statements;
}

bool IsRead(const PartiqlStatement& statement) {
  return statement.kind == PartiqlStatement::Kind::kSelect;
}

}  // namespace

// ExecuteTransaction: only SELECTs (a TransactGetItems) or only writes (a
// TransactWriteItems, INSERTs reporting DuplicateItem where the item exists).
Result<std::string> ExecuteTransaction(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(auto listed, ReadStatementList(req.body, "TransactStatements",
                                                       "transactStatements", 100, false));
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(auto token, wire::GetString(req.body, "ClientRequestToken"));
  DDBD_ASSIGN_OR_RETURN(auto capacity, ReadEnum(req.body, "ReturnConsumedCapacity",
                                                "returnConsumedCapacity",
                                                {"INDEXES", "TOTAL", "NONE"}, errors));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  std::vector<ListedStatement> statements;
  for (auto& entry : listed) statements.push_back(std::move(*entry));
  const bool reads = IsRead(statements.front().statement);
  for (const auto& entry : statements) {
    if (IsRead(entry.statement) != reads) {
      return Error::Validation("A transaction must contain either only reads or only writes");
    }
  }
  std::string body = "{\"TransactItems\":[";
  for (size_t i = 0; i < statements.size(); ++i) {
    const ListedStatement& entry = statements[i];
    auto options = [&entry](wire::JsonWriter& out) {
      if (entry.on_failure) out.Key("ReturnValuesOnConditionCheckFailure").String(*entry.on_failure);
    };
    std::string action;
    std::string_view kind;
    const PartiqlStatement::Kind statement_kind = entry.statement.kind;
    if (statement_kind == PartiqlStatement::Kind::kSelect) {
      DDBD_ASSIGN_OR_RETURN(action, GetRequest(ctx, entry.statement, false));
      kind = "Get";
    } else if (statement_kind == PartiqlStatement::Kind::kInsert) {
      DDBD_ASSIGN_OR_RETURN(action, InsertRequest(ctx, entry.statement, options));
      kind = "Put";
    } else {
      if (!entry.statement.returning.empty()) {
        return Error::Validation("RETURNING is not allowed in a transaction");
      }
      DDBD_ASSIGN_OR_RETURN(action, KeyedWriteRequest(ctx, entry.statement, options));
      kind = statement_kind == PartiqlStatement::Kind::kUpdate ? "Update" : "Delete";
    }
    body += (i ? ",{\"" : "{\"") + std::string(kind) + "\":" + action + "}";
  }
  body += "]";
  wire::JsonWriter extra;
  extra.BeginObject();
  if (capacity) extra.Key("ReturnConsumedCapacity").String(*capacity);
  if (token && !reads) extra.Key("ClientRequestToken").String(*token);
  extra.EndObject();
  const std::string members = extra.Take();
  if (members.size() > 2) body += "," + members.substr(1, members.size() - 2);
  body += "}";
  if (reads) return Call(ctx, ops::TransactGetItems, std::move(body));
  auto answer = Call(ctx, ops::TransactWriteItems, std::move(body));
  if (!answer.ok() && answer.error().code() == ErrorCode::kTransactionCanceled) {
    // An INSERT's failed "must not exist" condition is a duplicate item to PartiQL.
    std::vector<CancellationReason> reasons = answer.error().cancellation_reasons();
    for (size_t i = 0; i < reasons.size(); ++i) {
      if (statements[i].statement.kind == PartiqlStatement::Kind::kInsert &&
          reasons[i].code == "ConditionalCheckFailed") {
        reasons[i] = CancellationReason{"DuplicateItem", "Duplicate primary key exists in table",
                                        nullptr};
      }
    }
    return Error::TransactionCanceled(std::move(reasons));
  }
  return answer;
}

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
  static const std::pair<ErrorCode, std::string_view> kCodes[] = {
      {ErrorCode::kConditionalCheckFailed, "ConditionalCheckFailed"},
      {ErrorCode::kDuplicateItem, "DuplicateItem"},
      {ErrorCode::kValidation, "ValidationError"},
      {ErrorCode::kResourceNotFound, "ResourceNotFound"},
      {ErrorCode::kItemCollectionSizeLimitExceeded, "ItemCollectionSizeLimitExceeded"},
  };
  wire::JsonWriter out;
  out.BeginObject().Key("Responses").BeginArray();
  for (const auto& entry : listed) {
    Result<std::string> answer = entry.ok() ? Result<std::string>(std::string()) : entry.error();
    simdjson::dom::parser parser;
    std::optional<std::string> item;  // the Item of a read's answer, as JSON
    if (entry.ok()) {
      const PartiqlStatement& st = entry->statement;
      ExecuteInput in;
      in.on_failure = entry->on_failure;
      if (IsRead(st)) {
        auto request = GetRequest(ctx, st, entry->consistent_read);
        answer = request.ok() ? Call(ctx, ops::GetItem, std::move(*request))
                              : Result<std::string>(std::move(request).error());
        if (answer.ok()) {
          DDBD_ASSIGN_OR_RETURN(wire::JsonValue root, ParseAnswer(parser, *answer));
          simdjson::dom::element found;
          if (root["Item"].get(found) == simdjson::SUCCESS) item = simdjson::minify(found);
        }
      } else if (st.kind == PartiqlStatement::Kind::kInsert) {
        answer = RunInsert(ctx, in, st);
      } else {
        answer = RunKeyedWrite(ctx, in, st);
      }
    }
    out.BeginObject();
    if (entry.ok()) out.Key("TableName").String(entry->statement.table);
    if (answer.ok()) {
      if (item) out.Key("Item").Raw(*item);
    } else {
      const Error& error = answer.error();
      auto code = std::find_if(std::begin(kCodes), std::end(kCodes),
                               [&](const auto& known) { return known.first == error.code(); });
      if (code == std::end(kCodes)) return error;  // not the statement's own failure
      out.Key("Error").BeginObject().Key("Code").String(code->second)
          .Key("Message").String(error.message());
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
  DDBD_ASSIGN_OR_RETURN(PartiqlStatement statement, ParsePartiql(in.statement, in.parameters));
  switch (statement.kind) {
    case PartiqlStatement::Kind::kSelect: return RunSelect(ctx, in, statement);
    case PartiqlStatement::Kind::kInsert: return RunInsert(ctx, in, statement);
    case PartiqlStatement::Kind::kUpdate:
    case PartiqlStatement::Kind::kDelete: return RunKeyedWrite(ctx, in, statement);
  }
  return Error::Internal();
}

}  // namespace ddbd::server::ops
