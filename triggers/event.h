// The events a trigger's handler receives, as Lambda builds them for DynamoDB Streams: each
// record (eventID, eventName, eventVersion, eventSource, awsRegion, dynamodb{…},
// userIdentity for Time to Live deletions, eventSourceARN), the {"Records": […]} batch, and
// the record an on-failure destination receives for a batch that was given up.
//
// Entry points: RenderEventRecord, RenderEvent, RenderFailure.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/table_def.h"
#include "storage/stream_record.h"

namespace ddbd::triggers {

// One record as Lambda delivers it: a JSON object. ApproximateCreationDateTime is whole epoch
// seconds, as in Lambda's events; the images are those the stream's view type carries.
std::string RenderEventRecord(const TableDef& table, const StreamSpec& stream,
                              const storage::StreamRecord& record);

// {"Records": [<records>]}, from records RenderEventRecord wrote.
std::string RenderEvent(const std::vector<const std::string*>& records);

// Why a batch was given up, as Lambda's requestContext.condition says it.
inline constexpr std::string_view kRetryAttemptsExhausted = "RetryAttemptsExhausted";
inline constexpr std::string_view kRecordAgeExceeded = "RecordAgeExceeded";

struct FailedBatch {
  std::string trigger_name;
  std::string region;
  std::string stream_arn;
  std::string shard_id;
  uint64_t first_sequence = 0;
  uint64_t last_sequence = 0;
  int64_t first_ms = 0;  // the first and last records' times
  int64_t last_ms = 0;
  size_t size = 0;
  std::string_view condition;
  int invocations = 0;          // 0: given up before any invocation (no responseContext)
  bool function_error = false;  // the last invocation failed (not a partial batch response)
  int64_t now_ms = 0;
};

// The JSON an on-failure destination receives (Lambda's shape: requestContext,
// responseContext, version, timestamp, DDBStreamBatchInfo).
std::string RenderFailure(const FailedBatch& batch);

}  // namespace ddbd::triggers
