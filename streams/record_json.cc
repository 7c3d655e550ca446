// Stream records as JSON.
#include "streams/record_json.h"

#include "streams/shards.h"
#include "wire/attribute_value_json.h"

namespace ddbd::streams {

void WriteRecord(wire::JsonWriter& out, const TableDef& table, const StreamSpec& stream,
                 const storage::StreamRecord& record, RecordReader reader) {
  const bool lambda = reader == RecordReader::kLambda;
  out.BeginObject();
  out.Key("eventID").String(EventId(stream, record.sequence));
  out.Key("eventName").String(EventName(record.event));
  out.Key("eventVersion").String("1.1");
  out.Key("eventSource").String("aws:dynamodb");
  out.Key("awsRegion").String(table.region);
  out.Key("dynamodb").BeginObject();
  // DynamoDB reports whole seconds: a timestamp to the Streams API, an integer in events.
  if (lambda) {
    out.Key("ApproximateCreationDateTime").Int(record.time_ms / 1000);
  } else {
    out.Key("ApproximateCreationDateTime").EpochSeconds(record.time_ms / 1000 * 1000);
  }
  out.Key("Keys");
  wire::WriteAttributeMap(out, record.keys);
  if (record.new_image && (stream.view_type == StreamViewType::kNewImage ||
                           stream.view_type == StreamViewType::kNewAndOldImages)) {
    out.Key("NewImage");
    wire::WriteAttributeMap(out, *record.new_image);
  }
  if (record.old_image) {
    out.Key("OldImage");
    wire::WriteAttributeMap(out, *record.old_image);
  }
  out.Key("SequenceNumber").String(SequenceNumberText(record.sequence));
  out.Key("SizeBytes").Int(static_cast<int64_t>(record.size_bytes));
  out.Key("StreamViewType").String(StreamViewTypeName(stream.view_type));
  out.EndObject();
  if (record.by_ttl) {
    out.Key("userIdentity").BeginObject();
    if (lambda) {
      out.Key("type").String("Service").Key("principalId").String("dynamodb.amazonaws.com");
    } else {
      out.Key("PrincipalId").String("dynamodb.amazonaws.com").Key("Type").String("Service");
    }
    out.EndObject();
  }
  if (lambda) out.Key("eventSourceARN").String(table.StreamArn(stream));
  out.EndObject();
}

}  // namespace ddbd::streams
