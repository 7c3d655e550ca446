// Request facts for fault rules; partial batches, cancelled transactions and error answers.
#include "server/fault_injection.h"

#include <simdjson.h>

#include <algorithm>
#include <map>

#include "wire/json_reader.h"
#include "wire/json_writer.h"

namespace ddbd::server {
namespace {

using wire::JsonObject;
using wire::JsonValue;

// The text of an attribute value's scalar ({"S": "a"} → "a", {"N": "1"} → "1").
std::string ScalarText(JsonValue value) {
  JsonObject object;
  if (value.get_object().get(object) != simdjson::SUCCESS) return {};
  for (auto [type, scalar] : object) {
    std::string_view text;
    if (scalar.get_string().get(text) == simdjson::SUCCESS) return std::string(text);
  }
  return {};
}

// The partition-key value of a Key or Item object of `table`, as text ("" when unknown).
std::string PartitionValue(OpContext& ctx, std::string_view table, JsonValue key_or_item) {
  auto def = ctx.catalog().Find(ctx.scope(), table);
  JsonObject object;
  if (!def || key_or_item.get_object().get(object) != simdjson::SUCCESS) return {};
  auto value = wire::Member(object, def->partition_key.name);
  return value ? ScalarText(*value) : std::string();
}

std::string_view StringMember(JsonObject object, std::string_view name) {
  std::string_view text;
  auto value = wire::Member(object, name);
  if (!value || value->get_string().get(text) != simdjson::SUCCESS) return {};
  return text;
}

// One request of a batch or one action of a transaction.
struct Slot {
  std::string table;
  JsonValue entry;  // the PutRequest/DeleteRequest wrapper, the key, or the action
  std::string partition_value;
};

// The requests of a BatchWriteItem or BatchGetItem, table by table in request order; their
// partition values only when `values` asks for them.
std::vector<Slot> BatchSlots(OpContext& ctx, const Request& req, bool write, bool values) {
  std::vector<Slot> slots;
  auto items = wire::Member(req.body, "RequestItems");
  JsonObject tables;
  if (!items || items->get_object().get(tables) != simdjson::SUCCESS) return slots;
  for (auto [table, requests] : tables) {
    wire::JsonArray list;
    if (write) {
      if (requests.get_array().get(list) != simdjson::SUCCESS) continue;
    } else {
      JsonObject keys_and_options;
      if (requests.get_object().get(keys_and_options) != simdjson::SUCCESS) continue;
      auto keys = wire::Member(keys_and_options, "Keys");
      if (!keys || keys->get_array().get(list) != simdjson::SUCCESS) continue;
    }
    for (JsonValue entry : list) {
      JsonValue key = entry;
      JsonObject wrapper;
      if (write && entry.get_object().get(wrapper) == simdjson::SUCCESS) {
        for (auto [kind, inner] : wrapper) {
          JsonObject body;
          if (inner.get_object().get(body) != simdjson::SUCCESS) continue;
          if (auto found = wire::Member(body, kind == "PutRequest" ? "Item" : "Key")) key = *found;
        }
      }
      slots.push_back(Slot{std::string(table), entry,
                           values ? PartitionValue(ctx, table, key) : std::string()});
    }
  }
  return slots;
}

// The actions of a TransactWriteItems or TransactGetItems (partition values as BatchSlots).
std::vector<Slot> TransactionSlots(OpContext& ctx, const Request& req, bool values) {
  std::vector<Slot> slots;
  auto items = wire::Member(req.body, "TransactItems");
  wire::JsonArray list;
  if (!items || items->get_array().get(list) != simdjson::SUCCESS) return slots;
  for (JsonValue action : list) {
    Slot slot{{}, action, {}};
    JsonObject wrapper;
    if (action.get_object().get(wrapper) == simdjson::SUCCESS) {
      for (auto [kind, inner] : wrapper) {
        JsonObject body;
        if (inner.get_object().get(body) != simdjson::SUCCESS) continue;
        slot.table = std::string(StringMember(body, "TableName"));
        auto key = wire::Member(body, kind == "Put" ? "Item" : "Key");
        if (key && values) slot.partition_value = PartitionValue(ctx, slot.table, *key);
      }
    }
    slots.push_back(std::move(slot));
  }
  return slots;
}

// The table named by a stream ARN (".../table/<name>/stream/<label>").
std::string_view TableOfStreamArn(std::string_view arn) {
  const size_t start = arn.find(":table/");
  const size_t end = arn.find("/stream/");
  if (start == std::string_view::npos || end == std::string_view::npos || end < start + 7) {
    return {};
  }
  return arn.substr(start + 7, end - start - 7);
}

bool IsBatch(std::string_view operation) {
  return operation == "BatchWriteItem" || operation == "BatchGetItem";
}
bool IsTransaction(std::string_view operation) {
  return operation == "TransactWriteItems" || operation == "TransactGetItems";
}

std::string Minified(JsonValue value) { return simdjson::minify(value); }

// A BatchGetItem's request for one table ({"Keys": …, "ProjectionExpression": …}).
std::optional<JsonObject> TableRequest(const Request& req, std::string_view table) {
  JsonObject tables;
  JsonObject request;
  auto items = wire::Member(req.body, "RequestItems");
  if (!items || items->get_object().get(tables) != simdjson::SUCCESS) return std::nullopt;
  auto found = wire::Member(tables, table);
  if (!found || found->get_object().get(request) != simdjson::SUCCESS) return std::nullopt;
  return request;
}

// Writes `members` of a batch's RequestItems ({table: requests}) for the chosen or the other
// slots. A BatchGetItem table keeps its other members (projection, consistency) around Keys.
void WriteRequestItems(wire::JsonWriter& out, const Request& req, const std::vector<Slot>& slots,
                       const std::vector<bool>& take, bool write) {
  std::map<std::string, std::vector<size_t>> by_table;
  std::vector<std::string> order;
  for (size_t i = 0; i < slots.size(); ++i) {
    if (!take[i]) continue;
    auto [it, added] = by_table.try_emplace(slots[i].table);
    if (added) order.push_back(slots[i].table);
    it->second.push_back(i);
  }
  out.BeginObject();
  for (const std::string& table : order) {
    out.Key(table);
    if (write) {
      out.BeginArray();
      for (size_t i : by_table[table]) out.Raw(Minified(slots[i].entry));
      out.EndArray();
      continue;
    }
    out.BeginObject();
    if (std::optional<JsonObject> options = TableRequest(req, table)) {
      for (auto [member, value] : *options) {
        if (member == "Keys") continue;
        out.Key(member).Raw(Minified(value));
      }
    }
    out.Key("Keys").BeginArray();
    for (size_t i : by_table[table]) out.Raw(Minified(slots[i].entry));
    out.EndArray().EndObject();
  }
  out.EndObject();
}

Result<std::string> DispatchPartialBatch(const Operation& operation, OpContext& ctx,
                                         const Request& req, const faults::Fault& fault) {
  const bool write = operation.name == "BatchWriteItem";
  const std::vector<Slot> slots = BatchSlots(ctx, req, write, /*values=*/true);
  std::vector<std::string> values;
  for (const Slot& slot : slots) values.push_back(slot.partition_value);
  const std::vector<size_t> chosen = faults::ChooseRequests(fault, values);
  if (chosen.empty()) return Dispatch(operation, ctx, req);
  std::vector<bool> unprocessed(slots.size(), false);
  for (size_t i : chosen) unprocessed[i] = true;
  std::vector<bool> processed(slots.size());
  for (size_t i = 0; i < slots.size(); ++i) processed[i] = !unprocessed[i];

  wire::JsonWriter body;
  body.BeginObject();
  for (auto [member, value] : req.body) {
    body.Key(member);
    if (member == "RequestItems") {
      WriteRequestItems(body, req, slots, processed, write);
    } else {
      body.Raw(Minified(value));
    }
  }
  body.EndObject();
  std::string rewritten = body.Take();
  rewritten.reserve(rewritten.size() + simdjson::SIMDJSON_PADDING);
  simdjson::dom::parser parser;
  JsonObject rewritten_body;
  if (parser.parse(rewritten).get_object().get(rewritten_body) != simdjson::SUCCESS) {
    return Error::Internal("fault injection could not rewrite the batch");
  }
  DDBD_ASSIGN_OR_RETURN(std::string answer, Dispatch(operation, ctx, Request{rewritten_body}));

  // The answer with the chosen requests added to its (otherwise empty) unprocessed member.
  const std::string_view unprocessed_member = write ? "UnprocessedItems" : "UnprocessedKeys";
  simdjson::dom::parser answer_parser;
  JsonObject parsed;
  if (answer_parser.parse(answer).get_object().get(parsed) != simdjson::SUCCESS) return answer;
  wire::JsonWriter out;
  out.BeginObject();
  for (auto [member, value] : parsed) {
    if (member == unprocessed_member) continue;
    out.Key(member).Raw(Minified(value));
  }
  out.Key(unprocessed_member);
  WriteRequestItems(out, req, slots, unprocessed, write);
  out.EndObject();
  return out.Take();
}

// TransactionCanceledException with TransactionConflict for the chosen actions: the rule's
// partition value's, else the positions it lists, else the first.
Error CancelledByConflict(OpContext& ctx, const Request& req, const faults::Fault& fault) {
  const std::vector<Slot> slots = TransactionSlots(ctx, req, /*values=*/true);
  std::vector<CancellationReason> reasons(std::max<size_t>(slots.size(), 1));
  bool any = false;
  auto conflict = [&](size_t i) {
    reasons[i].code = "TransactionConflict";
    reasons[i].message = "Transaction is ongoing for the item";
    any = true;
  };
  for (size_t i = 0; i < slots.size(); ++i) {
    if (fault.partition_value && slots[i].partition_value == *fault.partition_value) conflict(i);
  }
  if (!fault.partition_value) {
    for (uint64_t position : fault.effect.items) {
      if (position < reasons.size()) conflict(position);
    }
  }
  if (!any) conflict(0);
  return Error::TransactionCanceled(std::move(reasons));
}

}  // namespace

faults::RequestFacts RequestFactsOf(OpContext& ctx, std::string_view operation, const Request& req,
                                    bool with_partition_values) {
  faults::RequestFacts facts;
  facts.operation = std::string(operation);
  facts.namespace_name = Service::NamespaceOfScope(ctx.scope());
  facts.index = std::string(StringMember(req.body, "IndexName"));
  std::string_view table = StringMember(req.body, "TableName");
  if (table.empty()) table = TableOfStreamArn(StringMember(req.body, "StreamArn"));
  if (!table.empty()) {
    facts.tables.emplace_back(table);
    for (std::string_view member : {"Key", "Item"}) {
      if (!with_partition_values) break;
      if (auto value = wire::Member(req.body, member)) {
        facts.partition_values.push_back(PartitionValue(ctx, table, *value));
      }
    }
  }
  std::vector<Slot> slots;
  if (IsBatch(operation)) {
    slots = BatchSlots(ctx, req, operation == "BatchWriteItem", with_partition_values);
  }
  if (IsTransaction(operation)) slots = TransactionSlots(ctx, req, with_partition_values);
  for (Slot& slot : slots) {
    if (std::find(facts.tables.begin(), facts.tables.end(), slot.table) == facts.tables.end()) {
      facts.tables.push_back(slot.table);
    }
    if (with_partition_values) facts.partition_values.push_back(std::move(slot.partition_value));
  }
  return facts;
}

Error InjectedError(const faults::FaultEffect& effect) {
  const ErrorCode code = ErrorCodeNamed(effect.error_type).value_or(ErrorCode::kInternal);
  if (!effect.message.empty()) return Error(code, effect.message);
  switch (code) {
    case ErrorCode::kProvisionedThroughputExceeded:
      return Error(code,
                   "The level of configured provisioned throughput for the table was exceeded. "
                   "Consider increasing your provisioning level with the UpdateTable API.");
    case ErrorCode::kThrottling:
      return Error(code, "Rate of requests exceeds the allowed throughput.");
    case ErrorCode::kRequestLimitExceeded:
      return Error(code,
                   "Throughput exceeds the current throughput limit for your account. Please "
                   "contact AWS Support at https://aws.amazon.com/support request a limit "
                   "increase");
    case ErrorCode::kTransactionConflict:
      return Error(code, "Transaction is ongoing for the item");
    case ErrorCode::kConditionalCheckFailed:
      return Error::ConditionalCheckFailed();
    case ErrorCode::kItemCollectionSizeLimitExceeded:
      return Error::ItemCollectionSizeLimitExceeded();
    case ErrorCode::kInternal:
      return Error::Internal();
    case ErrorCode::kResourceNotFound:
      return Error::ResourceNotFound();
    default:
      return Error(code, "Injected by a ddbd fault rule");
  }
}

Result<std::string> DispatchUnderFault(const Operation& operation, OpContext& ctx,
                                       const Request& req, const faults::Fault& fault,
                                       std::chrono::milliseconds& delay) {
  switch (fault.effect.kind) {
    case faults::FaultKind::kError:
      return InjectedError(fault.effect);
    case faults::FaultKind::kDelay:
      delay = std::chrono::milliseconds(fault.effect.delay_ms);
      return Dispatch(operation, ctx, req);
    case faults::FaultKind::kUnprocessed:
      if (!IsBatch(operation.name)) return Dispatch(operation, ctx, req);
      return DispatchPartialBatch(operation, ctx, req, fault);
    case faults::FaultKind::kTransactionConflict:
      if (IsTransaction(operation.name)) return CancelledByConflict(ctx, req, fault);
      return Error(ErrorCode::kTransactionConflict, "Transaction is ongoing for the item");
  }
  return Dispatch(operation, ctx, req);
}

}  // namespace ddbd::server
