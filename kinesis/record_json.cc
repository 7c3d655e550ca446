// Rendering of DynamoDB's Kinesis records.
#include "kinesis/record_json.h"

#include <string>

#include "streams/shards.h"
#include "wire/attribute_value_json.h"
#include "wire/json_writer.h"
#include "wire/md5.h"

namespace ddbd::kinesis {

std::string PartitionKeyOf(const Item& keys) {
  wire::JsonWriter out;
  wire::WriteAttributeMap(out, keys);  // an Item is ordered by name: the same bytes each time
  return wire::HexOf(wire::Md5(out.str()), /*upper=*/true);
}

std::string EventIdOf(std::string_view table_uuid, uint64_t records_id, uint64_t sequence) {
  std::string identity(table_uuid);
  identity += '/' + std::to_string(records_id) + '/' + std::to_string(sequence);
  const std::string hex = wire::HexOf(wire::Md5(identity));
  // Version 4 and RFC 4122's variant, as a random UUID has them.
  const char variant = "89ab"[std::stoi(hex.substr(16, 1), nullptr, 16) % 4];
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-4" + hex.substr(13, 3) + "-" + variant +
         hex.substr(17, 3) + "-" + hex.substr(20, 12);
}

OutgoingRecord RenderRecord(const TableDef& table, uint64_t records_id,
                            const storage::StreamRecord& change, KinesisPrecision precision) {
  const bool micro = precision == KinesisPrecision::kMicrosecond;
  wire::JsonWriter out;
  out.BeginObject();
  out.Key("awsRegion").String(table.region);
  out.Key("eventID").String(EventIdOf(table.table_uuid, records_id, change.sequence));
  out.Key("eventName").String(streams::EventName(change.event));
  out.Key("userIdentity");
  if (change.by_ttl) {
    out.BeginObject().Key("principalId").String("dynamodb.amazonaws.com");
    out.Key("type").String("Service").EndObject();
  } else {
    out.Raw("null");
  }
  out.Key("recordFormat").String("application/json");
  out.Key("tableName").String(table.name);
  out.Key("dynamodb").BeginObject();
  out.Key("ApproximateCreationDateTime").Int(micro ? change.time_ms * 1000 : change.time_ms);
  out.Key("Keys");
  wire::WriteAttributeMap(out, change.keys);
  if (change.new_image) {
    out.Key("NewImage");
    wire::WriteAttributeMap(out, *change.new_image);
  }
  if (change.old_image) {
    out.Key("OldImage");
    wire::WriteAttributeMap(out, *change.old_image);
  }
  out.Key("SizeBytes").Int(static_cast<int64_t>(change.size_bytes));
  if (micro) out.Key("ApproximateCreationDateTimePrecision").String("MICROSECOND");
  out.EndObject();
  out.Key("eventSource").String("aws:dynamodb");
  out.EndObject();
  return {change.sequence, PartitionKeyOf(change.keys), out.Take()};
}

}  // namespace ddbd::kinesis
