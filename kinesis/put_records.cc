// PutRecords requests and replies.
#include "kinesis/put_records.h"

#include <simdjson.h>

#include "model/error.h"
#include "wire/base64.h"
#include "wire/json_writer.h"

namespace ddbd::kinesis {

std::string EncodePutRecords(std::string_view stream_name,
                             std::span<const OutgoingRecord> records) {
  wire::JsonWriter out;
  out.BeginObject().Key("StreamName").String(stream_name).Key("Records").BeginArray();
  for (const OutgoingRecord& record : records) {
    out.BeginObject().Key("Data").String(wire::Base64Encode(record.data));
    out.Key("PartitionKey").String(record.partition_key).EndObject();
  }
  out.EndArray().EndObject();
  return out.Take();
}

Result<std::vector<std::string>> DecodePutRecordsReply(const KinesisReply& reply, size_t count) {
  simdjson::dom::parser parser;
  simdjson::dom::object body;
  const bool parsed = !parser.parse(reply.body.data(), reply.body.size()).get(body);
  if (reply.status != 200 || !parsed) {
    std::string_view type, message;
    if (parsed) {
      if (body["__type"].get(type)) type = {};
      if (body["message"].get(message) && body["Message"].get(message)) message = {};
    }
    return Error::Internal("Kinesis PutRecords failed (HTTP " + std::to_string(reply.status) +
                           (type.empty() ? "" : ", " + std::string(type)) +
                           (message.empty() ? "" : ": " + std::string(message)) + ")");
  }
  simdjson::dom::array records;
  if (body["Records"].get(records) || records.size() != count) {
    return Error::Internal("Kinesis PutRecords: a reply without one outcome per record");
  }
  std::vector<std::string> outcomes;
  outcomes.reserve(count);
  for (simdjson::dom::element record : records) {
    std::string_view code;
    if (record["ErrorCode"].get(code)) code = {};
    outcomes.emplace_back(code);
  }
  return outcomes;
}

}  // namespace ddbd::kinesis
