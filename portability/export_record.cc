// The export record as JSON: written with wire::JsonWriter, read with simdjson.
#include "portability/export_record.h"

#include <simdjson.h>

#include "wire/json_writer.h"

namespace ddbd::portability {
namespace {

void OptionalString(wire::JsonWriter& out, std::string_view key,
                    const std::optional<std::string>& value) {
  if (value) out.Key(key).String(*value);
}

}  // namespace

const char* JobStatusName(JobStatus status) {
  switch (status) {
    case JobStatus::kInProgress:
      return "IN_PROGRESS";
    case JobStatus::kCompleted:
      return "COMPLETED";
    case JobStatus::kFailed:
      return "FAILED";
  }
  return "FAILED";
}

std::string ExportArn(const ExportRecord& record) {
  return record.table_arn + "/export/" + record.id;
}

std::string ExportRoot(const ExportRecord& record) {
  std::string root;
  if (record.prefix && !record.prefix->empty()) {
    root = *record.prefix;
    if (!root.ends_with('/')) root.push_back('/');
  }
  return root + "AWSDynamoDB/";
}

std::string ExportManifestKey(const ExportRecord& record) {
  return ExportRoot(record) + record.id + "/manifest-summary.json";
}

std::string EncodeExport(const ExportRecord& r) {
  wire::JsonWriter out;
  out.BeginObject();
  out.Key("id").String(r.id).Key("scope").String(r.scope).Key("tableArn").String(r.table_arn);
  out.Key("tableUuid").String(r.table_uuid).Key("tableId").Int(static_cast<int64_t>(r.table_id));
  out.Key("historyId").Int(static_cast<int64_t>(r.history_id));
  out.Key("copyId").Int(static_cast<int64_t>(r.copy_id));
  out.Key("status").Int(static_cast<int64_t>(r.status));
  out.Key("start").Int(r.start_ms).Key("end").Int(r.end_ms);
  out.Key("incremental").Bool(r.incremental).Key("typeSent").Bool(r.type_sent);
  out.Key("exportTime").Int(r.export_time_ms).Key("from").Int(r.from_ms).Key("to").Int(r.to_ms);
  out.Key("view").String(r.view_type).Key("format").String(r.format);
  out.Key("bucket").String(r.bucket);
  OptionalString(out, "bucketOwner", r.bucket_owner);
  OptionalString(out, "prefix", r.prefix);
  out.Key("sse").String(r.sse_algorithm);
  OptionalString(out, "kmsKeyId", r.kms_key_id);
  OptionalString(out, "clientToken", r.client_token);
  out.Key("itemCount").Int(r.item_count).Key("billedSize").Int(r.billed_size_bytes);
  OptionalString(out, "failureCode", r.failure_code);
  OptionalString(out, "failureMessage", r.failure_message);
  out.EndObject();
  return out.Take();
}

Result<ExportRecord> DecodeExport(std::string_view bytes) {
  simdjson::dom::parser parser;
  simdjson::dom::object json;
  if (parser.parse(bytes.data(), bytes.size()).get(json) != simdjson::SUCCESS) {
    return Error::Internal("corrupt export record");
  }
  ExportRecord r;
  auto text = [&](const char* key) -> std::string {
    std::string_view value;
    return json[key].get(value) == simdjson::SUCCESS ? std::string(value) : std::string();
  };
  auto optional_text = [&](const char* key) -> std::optional<std::string> {
    std::string_view value;
    if (json[key].get(value) != simdjson::SUCCESS) return std::nullopt;
    return std::string(value);
  };
  auto number = [&](const char* key) -> int64_t {
    int64_t value = 0;
    return json[key].get(value) == simdjson::SUCCESS ? value : 0;
  };
  auto flag = [&](const char* key) {
    bool value = false;
    return json[key].get(value) == simdjson::SUCCESS && value;
  };
  r.id = text("id");
  r.scope = text("scope");
  r.table_arn = text("tableArn");
  r.table_uuid = text("tableUuid");
  r.table_id = static_cast<uint64_t>(number("tableId"));
  r.history_id = static_cast<uint64_t>(number("historyId"));
  r.copy_id = static_cast<uint64_t>(number("copyId"));
  r.status = static_cast<JobStatus>(number("status"));
  r.start_ms = number("start");
  r.end_ms = number("end");
  r.incremental = flag("incremental");
  r.type_sent = flag("typeSent");
  r.export_time_ms = number("exportTime");
  r.from_ms = number("from");
  r.to_ms = number("to");
  r.view_type = text("view");
  r.format = text("format");
  r.bucket = text("bucket");
  r.bucket_owner = optional_text("bucketOwner");
  r.prefix = optional_text("prefix");
  r.sse_algorithm = text("sse");
  r.kms_key_id = optional_text("kmsKeyId");
  r.client_token = optional_text("clientToken");
  r.item_count = number("itemCount");
  r.billed_size_bytes = number("billedSize");
  r.failure_code = optional_text("failureCode");
  r.failure_message = optional_text("failureMessage");
  if (r.id.empty()) return Error::Internal("corrupt export record");
  return r;
}

}  // namespace ddbd::portability
