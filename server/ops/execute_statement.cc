// ExecuteStatement: one PartiQL statement, run as the DynamoDB operation it amounts to.
// SELECT becomes a Query when its WHERE fixes the partition key by equality (Scan
// otherwise), INSERT a PutItem that must not overwrite (DuplicateItemException), UPDATE and
// DELETE an UpdateItem/DeleteItem of the item the WHERE names by its whole key, which must
// exist. The statement is translated (partiql.h) and handed to the operation as the request
// an SDK would send, so every rule, limit and message of that operation applies.
#include <cctype>

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
  // The statement's placeholders that the expressions written so far use.
  std::string Finish(const PartiqlStatement& statement) {
    bool any = false;
    for (const auto& [placeholder, name] : statement.names) {
      if (!Mentions(expressions_, placeholder)) continue;
      if (!any) out_.Key("ExpressionAttributeNames").BeginObject();
      any = true;
      out_.Key(placeholder).String(name);
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

// SELECT: Query when a top-level `partition key = value` term exists and no other term
// names a key attribute (Query filters may not), else Scan with the whole condition.
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
      if (!sort_taken && term.path && keys.sort && *term.path == *keys.sort) {
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
  simdjson::dom::array items;
  if (root["Items"].get_array().get(items) == simdjson::SUCCESS) {
    for (simdjson::dom::element item : items) {
      DDBD_ASSIGN_OR_RETURN(Item parsed, wire::ParseAttributeMap(item));
      wire::WriteAttributeMap(out, parsed);
    }
  }
  out.EndArray();
  simdjson::dom::element last;
  if (root["LastEvaluatedKey"].get(last) == simdjson::SUCCESS) {
    DDBD_ASSIGN_OR_RETURN(Item key, wire::ParseAttributeMap(last));
    out.Key("NextToken").String(wire::Base64Encode(simdjson::minify(last)));
    out.Key("LastEvaluatedKey");
    wire::WriteAttributeMap(out, key);
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

// UPDATE and DELETE: {} or, with RETURNING, the returned attributes as the only item.
Result<std::string> RunKeyedWrite(OpContext& ctx, const ExecuteInput& in, const PartiqlStatement& st) {
  DDBD_ASSIGN_OR_RETURN(KeyedTarget target, TargetOf(ctx, st));
  InnerRequest request(st.table);
  request.out().Key("Key");
  wire::WriteAttributeMap(request.out(), target.key);
  if (!st.returning.empty()) request.out().Key("ReturnValues").String(st.returning);
  PassOptions(in, request.out());
  request.Expression("UpdateExpression", st.update);
  request.Expression("ConditionExpression", target.condition);
  const bool update = st.kind == PartiqlStatement::Kind::kUpdate;
  DDBD_ASSIGN_OR_RETURN(std::string answer, Call(ctx, update ? ops::UpdateItem : ops::DeleteItem,
                                                 request.Finish(st)));
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(answer).get(root) != simdjson::SUCCESS) return Error::Internal();
  wire::JsonWriter out;
  out.BeginObject();
  simdjson::dom::element attributes;
  if (!st.returning.empty()) {
    out.Key("Items").BeginArray();
    if (root["Attributes"].get(attributes) == simdjson::SUCCESS) {
      DDBD_ASSIGN_OR_RETURN(Item returned, wire::ParseAttributeMap(attributes));
      wire::WriteAttributeMap(out, returned);
    }
    out.EndArray();
  }
  out.EndObject();
  return out.Take();
}

Result<std::string> RunInsert(OpContext& ctx, const ExecuteInput& in, const PartiqlStatement& st) {
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTable(st.table));
  PartiqlStatement with_key = st;
  with_key.names["#pk"] = table->partition_key.name;
  InnerRequest request(st.table);
  request.out().Key("Item");
  wire::WriteAttributeMap(request.out(), st.item->map());
  PassOptions(in, request.out());
  request.Expression("ConditionExpression", "attribute_not_exists(#pk)");
  auto answer = Call(ctx, ops::PutItem, request.Finish(with_key));
  if (!answer.ok() && answer.error().code() == ErrorCode::kConditionalCheckFailed) {
    return Error::DuplicateItem();
  }
  if (!answer.ok()) return std::move(answer).error();
  return std::string("{}");
}

}  // namespace

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
