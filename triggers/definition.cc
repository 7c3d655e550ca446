// Reading and writing trigger definitions.
#include "triggers/definition.h"

#include <simdjson.h>

#include <cmath>

#include "model/names.h"
#include "model/utf8.h"
#include "wire/constraint_errors.h"

namespace ddbd::triggers {
namespace {

using wire::JsonArray;
using wire::JsonObject;
using wire::JsonValue;

// The table a Lambda-style EventSourceArn names: a stream ARN
// ("arn:…:table/<name>/stream/<label>") or a table ARN.
Result<std::string> TableOfArn(std::string_view arn) {
  const size_t start = arn.find(":table/");
  if (!arn.starts_with("arn:") || start == std::string_view::npos) {
    return Error::Validation("EventSourceArn must be a table's or a stream's ARN");
  }
  std::string_view rest = arn.substr(start + 7);
  return std::string(rest.substr(0, rest.find('/')));
}

void CheckRange(wire::ConstraintErrors& errors, int64_t value, std::string_view member, int64_t min,
                int64_t max) {
  const std::string path = wire::EnvelopeName(member);
  if (value < min) errors.ValueAtLeast(std::to_string(value), path, min);
  if (value > max) errors.ValueAtMost(std::to_string(value), path, max);
}

Result<int64_t> ReadLong(JsonValue value, std::string_view member) {
  auto number = wire::AsLong(value);
  if (!number.ok()) return Error::Validation(std::string(member) + " must be an integer");
  return *number;
}

Result<std::string> ReadText(JsonValue value, std::string_view member) {
  std::string_view text;
  if (value.get_string().get(text) != simdjson::SUCCESS || text.empty()) {
    return Error::Validation(std::string(member) + " must be a non-empty string");
  }
  return std::string(text);
}

Result<bool> ReadFlag(JsonValue value, std::string_view member) {
  bool flag = false;
  if (value.get_bool().get(flag) != simdjson::SUCCESS) {
    return Error::Validation(std::string(member) + " must be true or false");
  }
  return flag;
}

Result<StartingPosition> ReadStartingPosition(JsonValue value) {
  std::string_view text;
  if (value.get_string().get(text) != simdjson::SUCCESS) text = {};
  if (text == "TRIM_HORIZON") return StartingPosition::kTrimHorizon;
  if (text == "LATEST") return StartingPosition::kLatest;
  if (text == "AT_TIMESTAMP") return StartingPosition::kAtTimestamp;
  wire::ConstraintErrors errors;
  errors.Enum(text, "startingPosition", "[TRIM_HORIZON, LATEST, AT_TIMESTAMP]");
  return errors.ToStatus().error();
}

// {"Filters": [{"Pattern": "<JSON text>"}]}; a Pattern may also be given as the object itself.
Result<FilterCriteria> ReadFilterCriteria(JsonValue value) {
  JsonObject criteria;
  JsonArray filters;
  if (value.get_object().get(criteria) != simdjson::SUCCESS || !wire::Member(criteria, "Filters") ||
      wire::Member(criteria, "Filters")->get_array().get(filters) != simdjson::SUCCESS) {
    return Error::Validation("FilterCriteria must be {\"Filters\": [{\"Pattern\": \"…\"}]}");
  }
  std::vector<std::string> patterns;
  for (JsonValue filter : filters) {
    JsonObject object;
    std::optional<JsonValue> pattern;
    if (filter.get_object().get(object) == simdjson::SUCCESS)
      pattern = wire::Member(object, "Pattern");
    std::string_view text;
    if (pattern && pattern->get_string().get(text) == simdjson::SUCCESS) {
      patterns.emplace_back(text);
    } else if (pattern && pattern->is_object()) {
      patterns.push_back(simdjson::minify(*pattern));
    } else {
      return Error::Validation("Each of FilterCriteria.Filters must be {\"Pattern\": \"…\"}");
    }
  }
  return FilterCriteria::Parse(std::move(patterns));
}

// {"OnFailure": {"Destination": "file:///…" | "http://…"}}.
Result<std::string> ReadDestination(JsonValue value) {
  JsonObject config;
  JsonObject on_failure;
  std::string_view destination;
  const Error shape = Error::Validation(
      "DestinationConfig must be {\"OnFailure\": {\"Destination\": \"file:///path\" or "
      "\"http://host:port/path\"}}");
  if (value.get_object().get(config) != simdjson::SUCCESS) return shape;
  auto member = wire::Member(config, "OnFailure");
  if (!member || member->get_object().get(on_failure) != simdjson::SUCCESS) return shape;
  auto target = wire::Member(on_failure, "Destination");
  if (!target || target->get_string().get(destination) != simdjson::SUCCESS) return shape;
  if (!(destination.starts_with("file:///") || destination.starts_with("http://"))) return shape;
  return std::string(destination);
}

// Whether FunctionResponseTypes asks for ReportBatchItemFailures (its only value).
Result<bool> ReportsItemFailures(JsonValue value) {
  JsonArray list;
  if (value.get_array().get(list) != simdjson::SUCCESS) {
    return Error::Validation("FunctionResponseTypes must be a list");
  }
  for (JsonValue element : list) {
    std::string_view text;
    if (element.get_string().get(text) != simdjson::SUCCESS) text = {};
    if (text != "ReportBatchItemFailures") {
      wire::ConstraintErrors errors;
      errors.EachMember(text, "functionResponseTypes",
                        "[Member must satisfy enum value set: [ReportBatchItemFailures]]");
      return errors.ToStatus().error();
    }
  }
  return list.size() > 0;
}

// Reads one member into `definition`; false when the member is not a definition's.
Result<bool> ReadMember(std::string_view key, JsonValue value, bool stored, TriggerDefinition& d) {
  if (key == "Namespace") {
    DDBD_ASSIGN_OR_RETURN(d.name_space, ReadText(value, key));
  } else if (key == "TableName") {
    DDBD_ASSIGN_OR_RETURN(d.table_name, ReadText(value, key));
  } else if (key == "EventSourceArn") {
    DDBD_ASSIGN_OR_RETURN(const std::string arn, ReadText(value, key));
    DDBD_ASSIGN_OR_RETURN(d.table_name, TableOfArn(arn));
  } else if (key == "Url") {
    DDBD_ASSIGN_OR_RETURN(d.url, ReadText(value, key));
  } else if (key == "Command") {
    DDBD_ASSIGN_OR_RETURN(d.command, ReadText(value, key));
  } else if (key == "BatchSize") {
    DDBD_ASSIGN_OR_RETURN(d.batch_size, ReadLong(value, key));
  } else if (key == "MaximumBatchingWindowInSeconds") {
    DDBD_ASSIGN_OR_RETURN(d.batching_window_seconds, ReadLong(value, key));
  } else if (key == "StartingPosition") {
    DDBD_ASSIGN_OR_RETURN(d.starting_position, ReadStartingPosition(value));
  } else if (key == "StartingPositionTimestamp") {
    double seconds = 0;
    if (value.get_double().get(seconds) != simdjson::SUCCESS || !std::isfinite(seconds) ||
        seconds < 0) {
      return Error::Validation("StartingPositionTimestamp must be epoch seconds");
    }
    d.starting_timestamp_ms = static_cast<int64_t>(std::llround(seconds * 1000));
  } else if (key == "MaximumRetryAttempts") {
    DDBD_ASSIGN_OR_RETURN(d.maximum_retry_attempts, ReadLong(value, key));
  } else if (key == "MaximumRecordAgeInSeconds") {
    DDBD_ASSIGN_OR_RETURN(d.maximum_record_age_seconds, ReadLong(value, key));
  } else if (key == "BisectBatchOnFunctionError") {
    DDBD_ASSIGN_OR_RETURN(d.bisect_batch_on_function_error, ReadFlag(value, key));
  } else if (key == "ParallelizationFactor") {
    DDBD_ASSIGN_OR_RETURN(d.parallelization_factor, ReadLong(value, key));
  } else if (key == "FunctionResponseTypes") {
    DDBD_ASSIGN_OR_RETURN(d.report_batch_item_failures, ReportsItemFailures(value));
  } else if (key == "FilterCriteria") {
    DDBD_ASSIGN_OR_RETURN(d.filter_criteria, ReadFilterCriteria(value));
  } else if (key == "DestinationConfig") {
    DDBD_ASSIGN_OR_RETURN(d.on_failure, ReadDestination(value));
  } else if (key == "TimeoutSeconds") {
    DDBD_ASSIGN_OR_RETURN(d.timeout_seconds, ReadLong(value, key));
  } else if (key == "Enabled") {
    DDBD_ASSIGN_OR_RETURN(d.enabled, ReadFlag(value, key));
  } else if (stored && key == "Scope") {
    std::string_view text;
    if (value.get_string().get(text) != simdjson::SUCCESS) text = {};
    d.scope = std::string(text);
  } else if (stored && key == "CreatedAfterSequence") {
    DDBD_ASSIGN_OR_RETURN(const int64_t sequence, ReadLong(value, key));
    d.created_after_sequence = static_cast<uint64_t>(sequence);
  } else if (stored && key == "CreatedMs") {
    DDBD_ASSIGN_OR_RETURN(d.created_ms, ReadLong(value, key));
  } else {
    return false;
  }
  return true;
}

Status CheckDefinition(const TriggerDefinition& d, bool timestamp_given) {
  if (d.table_name.empty()) {
    return Error::Validation("A trigger needs TableName (or a stream's EventSourceArn)");
  }
  if (d.url.empty() == d.command.empty()) {
    return Error::Validation(
        "A trigger needs exactly one target: Url (an http:// URL that receives each batch as a "
        "POST) or Command (run with the batch on standard input)");
  }
  if (!d.url.empty() && !d.url.starts_with("http://")) {
    return Error::Validation("Url must be an http:// URL (https is not spoken)");
  }
  wire::ConstraintErrors errors;
  errors.TableName(d.table_name, "tableName");
  CheckRange(errors, d.batch_size, "BatchSize", 1, kMaxBatchSize);
  CheckRange(errors, d.batching_window_seconds, "MaximumBatchingWindowInSeconds", 0,
             kMaxBatchingWindowSeconds);
  CheckRange(errors, d.maximum_retry_attempts, "MaximumRetryAttempts", -1, kMaxRetryAttempts);
  CheckRange(errors, d.maximum_record_age_seconds, "MaximumRecordAgeInSeconds", -1,
             kMaxRecordAgeSeconds);
  CheckRange(errors, d.parallelization_factor, "ParallelizationFactor", 1,
             kMaxParallelizationFactor);
  CheckRange(errors, d.timeout_seconds, "TimeoutSeconds", 1, kMaxTimeoutSeconds);
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  // Lambda's rule: a record age is -1 (the stream's retention) or at least a minute.
  if (d.maximum_record_age_seconds >= 0 && d.maximum_record_age_seconds < 60) {
    return Error::Validation("MaximumRecordAgeInSeconds must be -1 or between 60 and 604800");
  }
  if ((d.starting_position == StartingPosition::kAtTimestamp) != timestamp_given) {
    return Error::Validation(
        "StartingPositionTimestamp is required with StartingPosition AT_TIMESTAMP, and only "
        "with it");
  }
  return OkStatus();
}

}  // namespace

std::string_view StartingPositionName(StartingPosition position) {
  switch (position) {
    case StartingPosition::kTrimHorizon:
      return "TRIM_HORIZON";
    case StartingPosition::kLatest:
      return "LATEST";
    case StartingPosition::kAtTimestamp:
      return "AT_TIMESTAMP";
  }
  return "TRIM_HORIZON";
}

Result<TriggerDefinition> ParseDefinition(std::string_view name, wire::JsonObject body,
                                          bool stored) {
  if (!IsControlName(name)) {
    return Error::Validation("A trigger's name is 1 to 64 characters of [A-Za-z0-9_.-]");
  }
  TriggerDefinition definition;
  definition.name = std::string(name);
  definition.name_space = "default";
  bool position_given = false;
  bool timestamp_given = false;
  for (auto [key, value] : body) {
    if (key == "Name") {
      std::string_view text;
      if (value.get_string().get(text) != simdjson::SUCCESS || text != name) {
        return Error::Validation("Name, when given, must be the trigger's name in the path");
      }
      continue;
    }
    DDBD_ASSIGN_OR_RETURN(const bool known, ReadMember(key, value, stored, definition));
    if (!known) {
      return Error::Validation("Unknown member " + QuotableUtf8(key, 64) +
                               " in a trigger's definition");
    }
    position_given |= key == "StartingPosition";
    timestamp_given |= key == "StartingPositionTimestamp";
  }
  if (!position_given) {
    wire::ConstraintErrors errors;
    errors.NotNull("startingPosition");
    return errors.ToStatus().error();
  }
  DDBD_RETURN_IF_ERROR(CheckDefinition(definition, timestamp_given));
  return definition;
}

void RenderDefinition(wire::JsonWriter& out, const TriggerDefinition& d, bool stored) {
  out.Key("Name").String(d.name);
  out.Key("Namespace").String(d.name_space);
  out.Key("TableName").String(d.table_name);
  if (!d.url.empty()) out.Key("Url").String(d.url);
  if (!d.command.empty()) out.Key("Command").String(d.command);
  out.Key("BatchSize").Int(d.batch_size);
  out.Key("MaximumBatchingWindowInSeconds").Int(d.batching_window_seconds);
  out.Key("StartingPosition").String(StartingPositionName(d.starting_position));
  if (d.starting_position == StartingPosition::kAtTimestamp) {
    out.Key("StartingPositionTimestamp").EpochSeconds(d.starting_timestamp_ms);
  }
  out.Key("MaximumRetryAttempts").Int(d.maximum_retry_attempts);
  out.Key("MaximumRecordAgeInSeconds").Int(d.maximum_record_age_seconds);
  out.Key("BisectBatchOnFunctionError").Bool(d.bisect_batch_on_function_error);
  out.Key("ParallelizationFactor").Int(d.parallelization_factor);
  out.Key("FunctionResponseTypes").BeginArray();
  if (d.report_batch_item_failures) out.String("ReportBatchItemFailures");
  out.EndArray();
  if (!d.filter_criteria.empty()) {
    out.Key("FilterCriteria").BeginObject().Key("Filters").BeginArray();
    for (const std::string& pattern : d.filter_criteria.patterns()) {
      out.BeginObject().Key("Pattern").String(pattern).EndObject();
    }
    out.EndArray().EndObject();
  }
  if (!d.on_failure.empty()) {
    out.Key("DestinationConfig").BeginObject().Key("OnFailure").BeginObject();
    out.Key("Destination").String(d.on_failure).EndObject().EndObject();
  }
  out.Key("TimeoutSeconds").Int(d.timeout_seconds);
  out.Key("Enabled").Bool(d.enabled);
  if (stored) {
    out.Key("Scope").String(d.scope);
    out.Key("CreatedAfterSequence").Int(static_cast<int64_t>(d.created_after_sequence));
    out.Key("CreatedMs").Int(d.created_ms);
  } else {
    out.Key("CreationDateTime").EpochSeconds(d.created_ms);
  }
}

}  // namespace ddbd::triggers
