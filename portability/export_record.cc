// The export record as JSON: written with wire::JsonWriter, read with simdjson.
#include "portability/export_record.h"

#include "portability/job_naming.h"
#include "wire/json_writer.h"

namespace ddbd::portability {

std::string ExportArn(const ExportRecord& record) {
  return record.table_arn + "/export/" + record.id;
}

std::string ExportRoot(const ExportRecord& record) { return AwsDynamoDbFolder(record.prefix); }

std::string ExportManifestKey(const ExportRecord& record) {
  return ExportRoot(record) + record.id + "/manifest-summary.json";
}

std::string EncodeExport(const ExportRecord& r) {
  wire::JsonWriter out;
  out.BeginObject();
  WriteJobMembers(out, r);
  out.Key("historyId").Int(static_cast<int64_t>(r.history_id));
  out.Key("copyId").Int(static_cast<int64_t>(r.copy_id));
  out.Key("incremental").Bool(r.incremental).Key("typeSent").Bool(r.type_sent);
  out.Key("exportTime").Int(r.export_time_ms).Key("from").Int(r.from_ms).Key("to").Int(r.to_ms);
  out.Key("view").String(r.view_type).Key("format").String(r.format);
  WriteOptional(out, "prefix", r.prefix);
  out.Key("sse").String(r.sse_algorithm);
  WriteOptional(out, "kmsKeyId", r.kms_key_id);
  WriteOptional(out, "clientToken", r.client_token);
  out.Key("itemCount").Int(r.item_count).Key("billedSize").Int(r.billed_size_bytes);
  out.EndObject();
  return out.Take();
}

Result<ExportRecord> DecodeExport(std::string_view bytes) {
  DDBD_ASSIGN_OR_RETURN(RecordJson json, RecordJson::Parse(bytes, "export"));
  ExportRecord r;
  ReadJobMembers(json, r);
  r.history_id = static_cast<uint64_t>(json.Number("historyId"));
  r.copy_id = static_cast<uint64_t>(json.Number("copyId"));
  r.incremental = json.Flag("incremental");
  r.type_sent = json.Flag("typeSent");
  r.export_time_ms = json.Number("exportTime");
  r.from_ms = json.Number("from");
  r.to_ms = json.Number("to");
  r.view_type = json.Text("view");
  r.format = json.Text("format");
  r.prefix = json.OptionalText("prefix");
  r.sse_algorithm = json.Text("sse");
  r.kms_key_id = json.OptionalText("kmsKeyId");
  r.client_token = json.OptionalText("clientToken");
  r.item_count = json.Number("itemCount");
  r.billed_size_bytes = json.Number("billedSize");
  if (r.id.empty()) return Error::Internal("corrupt export record");
  return r;
}

}  // namespace ddbd::portability
