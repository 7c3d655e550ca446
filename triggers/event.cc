// Rendering of Lambda's DynamoDB Streams events.
#include "triggers/event.h"

#include <cinttypes>
#include <cstdio>
#include <ctime>

#include "streams/record_json.h"
#include "streams/shards.h"
#include "wire/json_writer.h"

namespace ddbd::triggers {
namespace {

// "2026-12-07T10:15:30.123Z" (with_ms) or "2026-12-07T10:15:30Z".
std::string IsoTime(int64_t ms, bool with_ms) {
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  const size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  if (with_ms) {
    std::snprintf(text + n, sizeof text - n, ".%03dZ", static_cast<int>(ms % 1000));
  } else {
    std::snprintf(text + n, sizeof text - n, "Z");
  }
  return text;
}

// A request id shaped like Lambda's (a UUID), derived from the batch so that it is stable.
std::string RequestId(const FailedBatch& batch) {
  const uint64_t a = batch.first_sequence * 0x9E3779B97F4A7C15ull ^ batch.last_sequence;
  const uint64_t b = static_cast<uint64_t>(batch.now_ms) * 0xC2B2AE3D27D4EB4Full ^ batch.size;
  char text[40];
  std::snprintf(text, sizeof text,
                "%08" PRIx64 "-%04" PRIx64 "-4%03" PRIx64 "-a%03" PRIx64 "-%012" PRIx64, a >> 32,
                (a >> 16) & 0xFFFF, a & 0xFFF, (b >> 48) & 0xFFF, b & uint64_t{0xFFFFFFFFFFFF});
  return text;
}

}  // namespace

std::string RenderEventRecord(const TableDef& table, const StreamSpec& stream,
                              const storage::StreamRecord& record) {
  wire::JsonWriter out;
  streams::WriteRecord(out, table, stream, record, streams::RecordReader::kLambda);
  return out.Take();
}

std::string RenderEvent(const std::vector<const std::string*>& records) {
  size_t size = 16;
  for (const std::string* record : records) size += record->size() + 1;
  std::string event;
  event.reserve(size);
  event += "{\"Records\":[";
  for (size_t i = 0; i < records.size(); ++i) {
    if (i > 0) event += ',';
    event += *records[i];
  }
  event += "]}";
  return event;
}

std::string RenderFailure(const FailedBatch& batch) {
  wire::JsonWriter out;
  out.BeginObject();
  out.Key("requestContext").BeginObject();
  out.Key("requestId").String(RequestId(batch));
  out.Key("functionArn")
      .String("arn:aws:lambda:" + batch.region + ":" + std::string(kAccountId) +
              ":function:" + batch.trigger_name);
  out.Key("condition").String(batch.condition);
  out.Key("approximateInvokeCount").Int(batch.invocations);
  out.EndObject();
  if (batch.invocations > 0) {
    out.Key("responseContext").BeginObject();
    out.Key("statusCode").Int(200);
    out.Key("executedVersion").String("$LATEST");
    if (batch.function_error) out.Key("functionError").String("Unhandled");
    out.EndObject();
  }
  out.Key("version").String("1.0");
  out.Key("timestamp").String(IsoTime(batch.now_ms, true));
  out.Key("DDBStreamBatchInfo").BeginObject();
  out.Key("shardId").String(batch.shard_id);
  out.Key("startSequenceNumber").String(streams::SequenceNumberText(batch.first_sequence));
  out.Key("endSequenceNumber").String(streams::SequenceNumberText(batch.last_sequence));
  out.Key("approximateArrivalOfFirstRecord").String(IsoTime(batch.first_ms, false));
  out.Key("approximateArrivalOfLastRecord").String(IsoTime(batch.last_ms, false));
  out.Key("batchSize").Int(static_cast<int64_t>(batch.size));
  out.Key("streamArn").String(batch.stream_arn);
  out.EndObject();
  out.EndObject();
  return out.Take();
}

}  // namespace ddbd::triggers
