// The import record as JSON.
#include "portability/import_record.h"

#include "portability/record_json.h"

namespace ddbd::portability {

std::string ImportArn(const ImportRecord& record) {
  return record.table_arn + "/import/" + record.id;
}

std::string EncodeImport(const ImportRecord& r) {
  wire::JsonWriter out;
  out.BeginObject();
  out.Key("id").String(r.id).Key("scope").String(r.scope).Key("tableArn").String(r.table_arn);
  out.Key("tableUuid").String(r.table_uuid).Key("tableId").Int(static_cast<int64_t>(r.table_id));
  out.Key("status").Int(static_cast<int64_t>(r.status));
  out.Key("start").Int(r.start_ms).Key("end").Int(r.end_ms);
  out.Key("clientToken").String(r.client_token).Key("bucket").String(r.bucket);
  WriteOptional(out, "bucketOwner", r.bucket_owner);
  WriteOptional(out, "keyPrefix", r.key_prefix);
  out.Key("format").String(r.format);
  WriteOptional(out, "delimiter", r.delimiter);
  if (r.header_list) {
    out.Key("headers").BeginArray();
    for (const auto& header : *r.header_list) out.String(header);
    out.EndArray();
  }
  out.Key("optionsSent").Bool(r.format_options_sent);
  out.Key("compression").String(r.compression);
  out.Key("creation").String(r.creation_parameters);
  out.Key("processedBytes").Int(r.processed_bytes).Key("processedItems").Int(r.processed_items);
  out.Key("importedItems").Int(r.imported_items).Key("errorCount").Int(r.error_count);
  WriteOptional(out, "failureCode", r.failure_code);
  WriteOptional(out, "failureMessage", r.failure_message);
  out.Key("errors").BeginArray();
  for (const auto& error : r.error_records) out.String(error);
  out.EndArray();
  out.EndObject();
  return out.Take();
}

Result<ImportRecord> DecodeImport(std::string_view bytes) {
  DDBD_ASSIGN_OR_RETURN(RecordJson json, RecordJson::Parse(bytes, "import"));
  ImportRecord r;
  r.id = json.Text("id");
  r.scope = json.Text("scope");
  r.table_arn = json.Text("tableArn");
  r.table_uuid = json.Text("tableUuid");
  r.table_id = static_cast<uint64_t>(json.Number("tableId"));
  r.status = static_cast<JobStatus>(json.Number("status"));
  r.start_ms = json.Number("start");
  r.end_ms = json.Number("end");
  r.client_token = json.Text("clientToken");
  r.bucket = json.Text("bucket");
  r.bucket_owner = json.OptionalText("bucketOwner");
  r.key_prefix = json.OptionalText("keyPrefix");
  r.format = json.Text("format");
  r.delimiter = json.OptionalText("delimiter");
  if (json.Flag("optionsSent") || !json.Texts("headers").empty()) {
    std::vector<std::string> headers = json.Texts("headers");
    if (!headers.empty()) r.header_list = std::move(headers);
  }
  r.format_options_sent = json.Flag("optionsSent");
  r.compression = json.Text("compression");
  r.creation_parameters = json.Text("creation");
  r.processed_bytes = json.Number("processedBytes");
  r.processed_items = json.Number("processedItems");
  r.imported_items = json.Number("importedItems");
  r.error_count = json.Number("errorCount");
  r.failure_code = json.OptionalText("failureCode");
  r.failure_message = json.OptionalText("failureMessage");
  r.error_records = json.Texts("errors");
  if (r.id.empty()) return Error::Internal("corrupt import record");
  return r;
}

}  // namespace ddbd::portability
