// A stream trigger's definition: which table's stream it reads, where its batches go (an
// HTTP URL receiving each batch as a POST, or a command receiving it on standard input), and
// Lambda's event-source-mapping settings, with Lambda's defaults and bounds for DynamoDB
// Streams. The same JSON shape is the control API's request and answer and, with the fields
// ddbd sets at creation, the stored form.
//
// Entry points: ParseDefinition, RenderDefinition, StartingPositionName.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "model/result.h"
#include "triggers/filter.h"
#include "wire/json_reader.h"
#include "wire/json_writer.h"

namespace ddbd::triggers {

enum class StartingPosition { kTrimHorizon, kLatest, kAtTimestamp };

std::string_view StartingPositionName(StartingPosition position);

// Lambda's bounds for DynamoDB event source mappings.
inline constexpr int64_t kMaxBatchSize = 10'000;
inline constexpr int64_t kMaxBatchingWindowSeconds = 300;
inline constexpr int64_t kMaxRetryAttempts = 10'000;
inline constexpr int64_t kMaxRecordAgeSeconds = 604'800;
inline constexpr int64_t kMaxParallelizationFactor = 10;
inline constexpr int64_t kMaxTimeoutSeconds = 900;           // Lambda's longest function timeout
inline constexpr size_t kMaxPayloadBytes = 6 * 1024 * 1024;  // a synchronous invocation's

struct TriggerDefinition {
  std::string name;        // 1–64 characters of [A-Za-z0-9_.-]
  std::string name_space;  // the table's namespace, as the control API names it
  std::string scope;       // the same, as storage scopes tables (set by the caller)
  std::string table_name;
  // Exactly one of the two: where each batch goes.
  std::string url;      // http://host:port/path, POSTed the batch
  std::string command;  // run by /bin/sh -c with the batch on standard input
  int64_t batch_size = 100;
  int64_t batching_window_seconds = 0;
  StartingPosition starting_position = StartingPosition::kTrimHorizon;
  int64_t starting_timestamp_ms = 0;        // AT_TIMESTAMP's
  int64_t maximum_retry_attempts = -1;      // -1: until the record expires
  int64_t maximum_record_age_seconds = -1;  // -1: the stream's retention
  bool bisect_batch_on_function_error = false;
  int64_t parallelization_factor = 1;
  bool report_batch_item_failures = false;
  FilterCriteria filter_criteria;
  std::string on_failure;        // "file:///path" (JSON lines appended) or an http:// URL; "" none
  int64_t timeout_seconds = 60;  // one invocation's limit, as a function's timeout
  bool enabled = true;
  // Set when the trigger is created: the last stream record written then (LATEST starts
  // after it, on whichever stream of the table) and the time.
  uint64_t created_after_sequence = 0;
  int64_t created_ms = 0;
};

// Reads a definition named `name` from the control API's body (or a --triggers file's
// entry); `stored` also accepts the fields ddbd sets itself. ValidationException naming the
// member for anything Lambda would refuse (Lambda's bounds) and for unknown members.
Result<TriggerDefinition> ParseDefinition(std::string_view name, wire::JsonObject body,
                                          bool stored = false);

// Writes `definition`'s members into the object `out` is in; `stored` adds the fields ddbd
// sets itself (and the scope).
void RenderDefinition(wire::JsonWriter& out, const TriggerDefinition& definition, bool stored);

}  // namespace ddbd::triggers
