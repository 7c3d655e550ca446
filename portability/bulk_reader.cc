// The records of a bulk put's input objects.
#include "portability/bulk_reader.h"

#include "portability/import_reader.h"
#include "wire/attribute_value_json.h"
#include "wire/json_writer.h"

namespace ddbd::portability {
namespace {

// A member of an Ion record that a JSON request holds as a string: its text when it is one,
// else its DynamoDB JSON (which the PutItem checks then refuse, as they refuse a JSON record
// with a member of the wrong type).
void WriteTextMember(wire::JsonWriter& out, const AttributeValue& value) {
  if (value.type() == AttributeType::kS) {
    out.String(value.scalar());
  } else {
    wire::WriteAttributeValue(out, value);
  }
}

// An Ion record's struct as the JSON object of a DynamoDB JSON record.
std::string JsonRecord(const AttributeMap& record) {
  wire::JsonWriter out;
  out.BeginObject();
  for (const auto& [member, value] : record) {
    if (member == "Item" || member == "ExpressionAttributeValues") {
      out.Key(member);
      if (value.type() == AttributeType::kM) {
        wire::WriteAttributeMap(out, value.map());
      } else {
        wire::WriteAttributeValue(out, value);
      }
    } else if (member == "ConditionExpression") {
      WriteTextMember(out.Key(member), value);
    } else if (member == "ExpressionAttributeNames" && value.type() == AttributeType::kM) {
      out.Key(member).BeginObject();
      for (const auto& [placeholder, name] : value.map())
        WriteTextMember(out.Key(placeholder), name);
      out.EndObject();
    } else if (member == "ExpressionAttributeNames") {
      wire::WriteAttributeValue(out.Key(member), value);
    }
  }
  out.EndObject();
  return out.Take();
}

}  // namespace

std::optional<BulkRecordReader::Record> BulkRecordReader::Next() {
  if (ended_) return std::nullopt;
  Result<std::optional<wire::JsonObject>> next =
      format_ == Format::kIon ? NextIonStruct() : NextJsonLine();
  if (next.ok() && !*next) {
    ended_ = true;
    return std::nullopt;
  }
  Record record;
  record.index = records_++;
  if (!next.ok()) {
    ended_ = true;
    record.json = std::move(next).error();
  } else {
    record.json = **next;
  }
  return record;
}

Result<std::optional<wire::JsonObject>> BulkRecordReader::NextJsonLine() {
  std::optional<std::string_view> line = portability::NextJsonLine(text_, line_begin_);
  if (!line) return std::optional<wire::JsonObject>();
  DDBD_ASSIGN_OR_RETURN(wire::JsonObject record, JsonLineRecord(parser_, *line));
  return std::optional<wire::JsonObject>(record);
}

Result<std::optional<wire::JsonObject>> BulkRecordReader::NextIonStruct() {
  DDBD_ASSIGN_OR_RETURN(std::optional<AttributeValue> value, ion_.Next());
  if (!value) return std::optional<wire::JsonObject>();
  if (value->type() != AttributeType::kM) return UnreadableRecord("the value is not a struct");
  const auto item = value->map().find("Item");
  if (item == value->map().end() || item->second.type() != AttributeType::kM) {
    return UnreadableRecord("the struct has no Item");
  }
  const std::string json = JsonRecord(value->map());
  wire::JsonObject record;
  if (parser_.parse(json.data(), json.size()).get(record) != simdjson::SUCCESS) {
    return UnreadableRecord("the struct is not DynamoDB JSON");  // text not UTF-8: refused before
  }
  return std::optional<wire::JsonObject>(record);
}

}  // namespace ddbd::portability
