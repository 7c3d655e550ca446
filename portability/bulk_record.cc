// The bulk operation record as JSON.
#include "portability/bulk_record.h"

#include <algorithm>

namespace ddbd::portability {
namespace {

void WriteNumbers(wire::JsonWriter& out, std::string_view key,
                  const std::map<std::string, int64_t>& numbers) {
  out.Key(key).BeginObject();
  for (const auto& [name, number] : numbers) out.Key(name).Int(number);
  out.EndObject();
}

void WriteTexts(wire::JsonWriter& out, std::string_view key,
                const std::vector<std::string>& texts) {
  out.Key(key).BeginArray();
  for (const auto& text : texts) out.String(text);
  out.EndArray();
}

}  // namespace

bool BulkRecord::Reports(std::string_view output_type) const {
  return std::find(output_types.begin(), output_types.end(), output_type) != output_types.end();
}

std::string BulkArn(const BulkRecord& record) {
  return record.table_arn + "/bulk-operation/" + record.id;
}

std::string EncodeBulk(const BulkRecord& r) {
  wire::JsonWriter out;
  out.BeginObject();
  WriteJobMembers(out, r);
  out.Key("clientToken").String(r.client_token).Key("digest").String(r.request_digest);
  out.Key("tableName").String(r.table_name);
  WriteOptional(out, "keyPrefix", r.key_prefix);
  out.Key("format").String(r.format).Key("compression").String(r.compression);
  WriteOptional(out, "outputBucket", r.output_bucket);
  WriteOptional(out, "outputOwner", r.output_owner);
  WriteOptional(out, "outputPrefix", r.output_prefix);
  WriteOptional(out, "sse", r.sse_algorithm);
  WriteOptional(out, "kmsKey", r.kms_key);
  WriteTexts(out, "outputTypes", r.output_types);
  if (r.max_write_units) out.Key("maxUnits").Int(*r.max_write_units);
  out.Key("tier").String(r.tier);
  if (r.total_bytes) out.Key("totalBytes").Int(*r.total_bytes);
  out.Key("nextObject").Int(r.next_object).Key("nextRecord").Int(r.next_record);
  out.Key("processedItems").Int(r.processed_items).Key("processedBytes").Int(r.processed_bytes);
  out.Key("failedItems").Int(r.failed_items).Key("conditionFailures").Int(r.condition_failures);
  out.Key("tableBytes").Int(r.usage.table_bytes);
  WriteNumbers(out, "gsiBytes", r.usage.global_indexes);
  WriteNumbers(out, "lsiBytes", r.usage.local_indexes);
  WriteNumbers(out, "vectorBytes", r.usage.vector_indexes);
  WriteTexts(out, "pendingErrors", r.pending_errors);
  WriteTexts(out, "pendingConditionFailures", r.pending_condition_failures);
  out.Key("errorParts").Int(r.error_parts);
  out.Key("conditionFailureParts").Int(r.condition_failure_parts);
  out.EndObject();
  return out.Take();
}

Result<BulkRecord> DecodeBulk(std::string_view bytes) {
  DDBD_ASSIGN_OR_RETURN(RecordJson json, RecordJson::Parse(bytes, "bulk operation"));
  BulkRecord r;
  ReadJobMembers(json, r);
  if (r.id.empty()) return Error::Internal("corrupt bulk operation record");
  r.client_token = json.Text("clientToken");
  r.request_digest = json.Text("digest");
  r.table_name = json.Text("tableName");
  r.key_prefix = json.OptionalText("keyPrefix");
  r.format = json.Text("format");
  r.compression = json.Text("compression");
  r.output_bucket = json.OptionalText("outputBucket");
  r.output_owner = json.OptionalText("outputOwner");
  r.output_prefix = json.OptionalText("outputPrefix");
  r.sse_algorithm = json.OptionalText("sse");
  r.kms_key = json.OptionalText("kmsKey");
  r.output_types = json.Texts("outputTypes");
  if (json.Has("maxUnits")) r.max_write_units = json.Number("maxUnits");
  r.tier = json.Text("tier");
  if (json.Has("totalBytes")) r.total_bytes = json.Number("totalBytes");
  r.next_object = json.Number("nextObject");
  r.next_record = json.Number("nextRecord");
  r.processed_items = json.Number("processedItems");
  r.processed_bytes = json.Number("processedBytes");
  r.failed_items = json.Number("failedItems");
  r.condition_failures = json.Number("conditionFailures");
  r.usage.table_bytes = json.Number("tableBytes");
  r.usage.global_indexes = json.Numbers("gsiBytes");
  r.usage.local_indexes = json.Numbers("lsiBytes");
  r.usage.vector_indexes = json.Numbers("vectorBytes");
  r.pending_errors = json.Texts("pendingErrors");
  r.pending_condition_failures = json.Texts("pendingConditionFailures");
  r.error_parts = json.Number("errorParts");
  r.condition_failure_parts = json.Number("conditionFailureParts");
  return r;
}

}  // namespace ddbd::portability
