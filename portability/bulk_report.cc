// The report of a bulk operation: its lines, parts and manifest.
#include "portability/bulk_report.h"

#include <cstdio>

#include "portability/job_naming.h"
#include "wire/attribute_value_json.h"
#include "wire/json_writer.h"

namespace ddbd::portability {
namespace {

// A part holds this many lines, or fewer lines of this many bytes.
constexpr size_t kPartLines = 1000;
constexpr size_t kPartBytes = size_t{1} << 20;

constexpr std::string_view kErrorFolder = "errors/";
constexpr std::string_view kConditionFailureFolder = "condition-check-failures/";

void WritePointer(wire::JsonWriter& out, const BulkRecord& record, std::string_view object_key,
                  size_t index) {
  out.Key("itemS3Pointer").BeginObject();
  out.Key("bucket").String(record.bucket).Key("key").String(object_key);
  out.Key("itemIndex").Int(static_cast<int64_t>(index)).EndObject();
}

std::string PartName(std::string_view folder, int64_t part) {
  char number[16];
  std::snprintf(number, sizeof number, "%05lld", static_cast<long long>(part));
  return std::string(folder) + "part-" + number + ".json";
}

size_t Bytes(const std::vector<std::string>& lines) {
  size_t bytes = 0;
  for (const auto& line : lines) bytes += line.size() + 1;
  return bytes;
}

Status FlushLines(objects::ObjectStore& store, const BulkRecord& record,
                  std::vector<std::string>& lines, int64_t& parts, std::string_view folder,
                  bool all) {
  if (lines.empty() || (!all && lines.size() < kPartLines && Bytes(lines) < kPartBytes)) {
    return OkStatus();
  }
  std::string text;
  for (const auto& line : lines) text.append(line).push_back('\n');
  DDBD_RETURN_IF_ERROR(
      store.Put(*record.output_bucket, ReportKey(record, PartName(folder, parts)), text));
  ++parts;
  lines.clear();
  return OkStatus();
}

void WriteParts(wire::JsonWriter& out, const BulkRecord& record, std::string_view output_type,
                std::string_view folder, int64_t parts) {
  for (int64_t part = 0; part < parts; ++part) {
    out.BeginObject().Key("outputType").String(output_type);
    out.Key("key").String(ReportKey(record, PartName(folder, part))).EndObject();
  }
}

}  // namespace

std::string ReportKey(const BulkRecord& record, std::string_view name) {
  return AwsDynamoDbFolder(record.output_prefix) + record.id + "/" + std::string(name);
}

void AddErrorLine(BulkRecord& record, std::string_view object_key, size_t index,
                  const Error& error) {
  ++record.failed_items;
  if (!record.output_bucket || !record.Reports("ERROR")) return;
  wire::JsonWriter out;
  out.BeginObject();
  WritePointer(out, record, object_key, index);
  out.Key("errorCode").String(error.name());
  out.Key("errorMessage").String(error.message());
  out.EndObject();
  record.pending_errors.push_back(out.Take());
}

void AddConditionFailureLine(BulkRecord& record, std::string_view object_key, size_t index,
                             const Item& attempted, const std::optional<Item>& existing) {
  ++record.condition_failures;
  if (!record.output_bucket || !record.Reports("CONDITION_CHECK_FAILURE")) return;
  wire::JsonWriter out;
  out.BeginObject();
  WritePointer(out, record, object_key, index);
  out.Key("Item");
  wire::WriteAttributeMap(out, attempted);
  if (existing) {
    out.Key("ExistingItem");
    wire::WriteAttributeMap(out, *existing);
  }
  out.EndObject();
  record.pending_condition_failures.push_back(out.Take());
}

Status FlushReport(objects::ObjectStore& store, BulkRecord& record, bool all) {
  if (!record.output_bucket) return OkStatus();
  DDBD_RETURN_IF_ERROR(
      FlushLines(store, record, record.pending_errors, record.error_parts, kErrorFolder, all));
  return FlushLines(store, record, record.pending_condition_failures,
                    record.condition_failure_parts, kConditionFailureFolder, all);
}

Status WriteManifest(objects::ObjectStore& store, const BulkRecord& record) {
  if (!record.output_bucket) return OkStatus();
  wire::JsonWriter out;
  out.BeginObject().Key("bulkOperationArn").String(BulkArn(record));
  out.Key("tableArn").String(record.table_arn);
  out.Key("status").String(JobStatusName(record.status));
  out.Key("startTime").String(IsoTime(record.start_ms));
  out.Key("endTime").String(IsoTime(record.end_ms));
  out.Key("processedItemCount").Int(record.processed_items);
  out.Key("failedItemCount").Int(record.failed_items);
  out.Key("conditionCheckFailureCount").Int(record.condition_failures);
  out.Key("outputFiles").BeginArray();
  WriteParts(out, record, "ERROR", kErrorFolder, record.error_parts);
  WriteParts(out, record, "CONDITION_CHECK_FAILURE", kConditionFailureFolder,
             record.condition_failure_parts);
  out.EndArray().EndObject();
  return store.Put(*record.output_bucket, ReportKey(record, "manifest.json"), out.Take());
}

}  // namespace ddbd::portability
