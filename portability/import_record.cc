// The import record as JSON.
#include "portability/import_record.h"

namespace ddbd::portability {

std::string ImportArn(const ImportRecord& record) {
  return record.table_arn + "/import/" + record.id;
}

std::string EncodeImport(const ImportRecord& r) {
  wire::JsonWriter out;
  out.BeginObject();
  WriteJobMembers(out, r);
  out.Key("clientToken").String(r.client_token);
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
  out.Key("errors").BeginArray();
  for (const auto& error : r.error_records) out.String(error);
  out.EndArray();
  out.EndObject();
  return out.Take();
}

Result<ImportRecord> DecodeImport(std::string_view bytes) {
  DDBD_ASSIGN_OR_RETURN(RecordJson json, RecordJson::Parse(bytes, "import"));
  ImportRecord r;
  ReadJobMembers(json, r);
  r.client_token = json.Text("clientToken");
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
  r.error_records = json.Texts("errors");
  if (r.id.empty()) return Error::Internal("corrupt import record");
  return r;
}

}  // namespace ddbd::portability
