// The control API's fault rules: PUT (replace), GET (list with counters), DELETE (clear).
#include <cmath>

#include "model/utf8.h"
#include "server/control/handlers.h"
#include "server/dispatch.h"
#include "wire/json_reader.h"
#include "wire/json_writer.h"

namespace ddbd::server::control {
namespace {

using wire::JsonObject;
using wire::JsonValue;

constexpr int64_t kMaxDelayMs = 600'000;  // ten minutes: longer than any SDK timeout

Error RuleError(size_t index, const std::string& what) {
  return Error::Validation("Rules[" + std::to_string(index) + "]: " + what);
}

// `value` as an object, or the rule's ValidationException saying what it must be.
Result<JsonObject> ObjectOf(size_t index, JsonValue value, const std::string& what) {
  JsonObject object;
  if (value.get_object().get(object) != simdjson::SUCCESS) return RuleError(index, what);
  return object;
}

Result<uint64_t> Count(size_t index, std::string_view member, JsonValue value, uint64_t min) {
  int64_t number = 0;
  if (value.get_int64().get(number) != simdjson::SUCCESS || number < int64_t(min)) {
    return RuleError(index, std::string(member) + " must be an integer >= " + std::to_string(min));
  }
  return static_cast<uint64_t>(number);
}

Result<std::string> Text(size_t index, std::string_view member, JsonValue value) {
  std::string_view text;
  if (value.get_string().get(text) != simdjson::SUCCESS || text.empty()) {
    return RuleError(index, std::string(member) + " must be a non-empty string");
  }
  return std::string(text);
}

Status ParseError(size_t index, JsonValue value, faults::FaultEffect& effect) {
  DDBD_ASSIGN_OR_RETURN(JsonObject object,
                        ObjectOf(index, value, "Error must be an object with Type (and Message)"));
  effect.kind = faults::FaultKind::kError;
  for (auto [key, member] : object) {
    if (key == "Type") {
      DDBD_ASSIGN_OR_RETURN(effect.error_type, Text(index, "Error.Type", member));
    } else if (key == "Message") {
      DDBD_ASSIGN_OR_RETURN(effect.message, Text(index, "Error.Message", member));
    } else {
      return RuleError(index, "unknown member Error." + QuotableUtf8(key, 64));
    }
  }
  const std::optional<ErrorCode> code = ErrorCodeNamed(effect.error_type);
  if (!code || *code == ErrorCode::kTransactionCanceled || *code == ErrorCode::kControlNotFound ||
      *code == ErrorCode::kControlMethodNotAllowed) {
    return RuleError(index, "Error.Type '" + QuotableUtf8(effect.error_type, 64) +
                                "' is not an exception ddbd can answer with (for "
                                "TransactionCanceledException, use TransactionConflict)");
  }
  return OkStatus();
}

Status ParseUnprocessed(size_t index, JsonValue value, faults::FaultEffect& effect) {
  DDBD_ASSIGN_OR_RETURN(
      JsonObject object,
      ObjectOf(index, value, "Unprocessed must be an object: {\"Fraction\": f} or {\"Count\": n}"));
  effect.kind = faults::FaultKind::kUnprocessed;
  for (auto [key, member] : object) {
    double fraction = 0;
    if (key == "Fraction") {
      if (member.get_double().get(fraction) != simdjson::SUCCESS || !(fraction >= 0) ||
          fraction > 1) {
        return RuleError(index, "Unprocessed.Fraction must be a number from 0 to 1");
      }
      effect.fraction = fraction;
    } else if (key == "Count") {
      DDBD_ASSIGN_OR_RETURN(effect.count, Count(index, "Unprocessed.Count", member, 1));
    } else {
      return RuleError(index, "unknown member Unprocessed." + QuotableUtf8(key, 64));
    }
  }
  return OkStatus();
}

Status ParseConflict(size_t index, JsonValue value, faults::FaultEffect& effect) {
  DDBD_ASSIGN_OR_RETURN(
      JsonObject object,
      ObjectOf(index, value, "TransactionConflict must be an object ({} or {\"Items\": [i, …]})"));
  effect.kind = faults::FaultKind::kTransactionConflict;
  for (auto [key, member] : object) {
    wire::JsonArray items;
    if (key != "Items" || member.get_array().get(items) != simdjson::SUCCESS) {
      return RuleError(index, "TransactionConflict takes only Items, a list of positions");
    }
    for (JsonValue item : items) {
      DDBD_ASSIGN_OR_RETURN(uint64_t position,
                            Count(index, "TransactionConflict.Items[]", item, 0));
      effect.items.push_back(position);
    }
  }
  return OkStatus();
}

Status ParseMatchOrSchedule(size_t index, std::string_view key, JsonValue member,
                            faults::FaultRule& rule) {
  if (key == "Operation") {
    DDBD_ASSIGN_OR_RETURN(rule.match.operation, Text(index, key, member));
    if (rule.match.operation != "*" &&
        !FindOperation("DynamoDB_20120810." + rule.match.operation) &&
        !FindOperation("DynamoDBStreams_20120810." + rule.match.operation)) {
      return RuleError(index, "unknown Operation '" + QuotableUtf8(rule.match.operation, 64) + "'");
    }
  } else if (key == "Namespace") {
    DDBD_ASSIGN_OR_RETURN(rule.match.namespace_name, Text(index, key, member));
  } else if (key == "Table") {
    DDBD_ASSIGN_OR_RETURN(rule.match.table, Text(index, key, member));
  } else if (key == "Index") {
    DDBD_ASSIGN_OR_RETURN(rule.match.index, Text(index, key, member));
  } else if (key == "PartitionKey") {
    DDBD_ASSIGN_OR_RETURN(rule.match.partition_value, Text(index, key, member));
  } else if (key == "Count") {
    DDBD_ASSIGN_OR_RETURN(rule.schedule.count, Count(index, key, member, 1));
  } else if (key == "After") {
    DDBD_ASSIGN_OR_RETURN(rule.schedule.after, Count(index, key, member, 0));
  } else if (key == "Every") {
    DDBD_ASSIGN_OR_RETURN(rule.schedule.every, Count(index, key, member, 1));
  } else if (key == "Seed") {
    DDBD_ASSIGN_OR_RETURN(rule.schedule.seed, Count(index, key, member, 0));
  } else if (key == "Probability") {
    double p = 0;
    if (member.get_double().get(p) != simdjson::SUCCESS || !(p > 0) || p > 1) {
      return RuleError(index, "Probability must be a number greater than 0 and at most 1");
    }
    rule.schedule.probability = p;
  } else {
    return RuleError(index, "unknown member " + QuotableUtf8(key, 64));
  }
  return OkStatus();
}

Result<faults::FaultRule> ParseRule(size_t index, JsonValue value) {
  DDBD_ASSIGN_OR_RETURN(JsonObject object, ObjectOf(index, value, "a rule must be an object"));
  faults::FaultRule rule;
  int effects = 0;
  for (auto [key, member] : object) {
    if (key == "Error") {
      ++effects;
      DDBD_RETURN_IF_ERROR(ParseError(index, member, rule.effect));
    } else if (key == "Unprocessed") {
      ++effects;
      DDBD_RETURN_IF_ERROR(ParseUnprocessed(index, member, rule.effect));
    } else if (key == "TransactionConflict") {
      ++effects;
      DDBD_RETURN_IF_ERROR(ParseConflict(index, member, rule.effect));
    } else if (key == "DelayMs") {
      ++effects;
      int64_t ms = 0;
      if (member.get_int64().get(ms) != simdjson::SUCCESS || ms < 0 || ms > kMaxDelayMs) {
        return RuleError(index, "DelayMs must be an integer from 0 to 600000");
      }
      rule.effect.kind = faults::FaultKind::kDelay;
      rule.effect.delay_ms = ms;
    } else {
      DDBD_RETURN_IF_ERROR(ParseMatchOrSchedule(index, key, member, rule));
    }
  }
  if (effects != 1) {
    return RuleError(index,
                     "a rule has exactly one of Error, Unprocessed, TransactionConflict "
                     "and DelayMs");
  }
  const std::string& operation = rule.match.operation;
  if (rule.effect.kind == faults::FaultKind::kUnprocessed && operation != "BatchWriteItem" &&
      operation != "BatchGetItem") {
    return RuleError(index, "Unprocessed applies to Operation BatchWriteItem or BatchGetItem");
  }
  return rule;
}

void WriteRule(wire::JsonWriter& out, const faults::FaultRuleState& state) {
  const faults::FaultRule& rule = state.rule;
  out.BeginObject().Key("Operation").String(rule.match.operation);
  if (rule.match.namespace_name) out.Key("Namespace").String(*rule.match.namespace_name);
  if (rule.match.table) out.Key("Table").String(*rule.match.table);
  if (rule.match.index) out.Key("Index").String(*rule.match.index);
  if (rule.match.partition_value) out.Key("PartitionKey").String(*rule.match.partition_value);
  if (rule.schedule.count) out.Key("Count").Int(static_cast<int64_t>(*rule.schedule.count));
  out.Key("After").Int(static_cast<int64_t>(rule.schedule.after));
  out.Key("Every").Int(static_cast<int64_t>(rule.schedule.every));
  out.Key("Probability").Double(rule.schedule.probability);
  out.Key("Seed").Int(static_cast<int64_t>(rule.schedule.seed));
  const faults::FaultEffect& effect = rule.effect;
  switch (effect.kind) {
    case faults::FaultKind::kError:
      out.Key("Error").BeginObject().Key("Type").String(effect.error_type);
      if (!effect.message.empty()) out.Key("Message").String(effect.message);
      out.EndObject();
      break;
    case faults::FaultKind::kUnprocessed:
      out.Key("Unprocessed").BeginObject();
      if (effect.fraction) out.Key("Fraction").Double(*effect.fraction);
      if (effect.count) out.Key("Count").Int(static_cast<int64_t>(*effect.count));
      out.EndObject();
      break;
    case faults::FaultKind::kTransactionConflict:
      out.Key("TransactionConflict").BeginObject().Key("Items").BeginArray();
      for (uint64_t item : effect.items) out.Int(static_cast<int64_t>(item));
      out.EndArray().EndObject();
      break;
    case faults::FaultKind::kDelay:
      out.Key("DelayMs").Int(effect.delay_ms);
      break;
  }
  out.Key("Matched").Int(static_cast<int64_t>(state.matched));
  out.Key("Fired").Int(static_cast<int64_t>(state.fired));
  out.EndObject();
}

}  // namespace

Result<std::string> PutFaults(Service& service, const ControlBody& body) {
  std::optional<JsonValue> rules_json = body ? wire::Member(*body, "Rules") : std::nullopt;
  wire::JsonArray list;
  if (!rules_json || rules_json->get_array().get(list) != simdjson::SUCCESS ||
      wire::MemberCount(*body) != 1) {
    return Error::Validation("PUT /ddbd/faults takes {\"Rules\": [rule, …]}");
  }
  std::vector<faults::FaultRule> rules;
  for (JsonValue value : list) {
    DDBD_ASSIGN_OR_RETURN(faults::FaultRule rule, ParseRule(rules.size(), value));
    rules.push_back(std::move(rule));
  }
  service.faults().Replace(std::move(rules));
  return GetFaults(service);
}

Result<std::string> GetFaults(Service& service) {
  wire::JsonWriter out;
  out.BeginObject().Key("Rules").BeginArray();
  for (const faults::FaultRuleState& state : service.faults().Rules()) WriteRule(out, state);
  out.EndArray().EndObject();
  return out.Take();
}

Result<std::string> DeleteFaults(Service& service) {
  service.faults().Clear();
  return GetFaults(service);
}

}  // namespace ddbd::server::control
