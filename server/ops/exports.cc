// ExportTableToPointInTime, DescribeExport and ListExports: exports of a table's state at a
// point in time (full) or of its changes in a period (incremental) to the local S3, in
// DynamoDB's export layout. The objects are written in the background (portability/
// export_jobs.h); here requests are checked as DynamoDB checks them and records rendered.
#include <algorithm>

#include "backups/history_retention.h"
#include "portability/job_naming.h"
#include "server/ops/common.h"
#include "server/ops/job_request.h"
#include "server/ops/ops.h"

namespace ddbd::server::ops {
namespace {

using portability::ExportRecord;

constexpr int64_t kMinIncrementalMs = 15 * 60 * 1000;
constexpr int64_t kMaxIncrementalMs = 24 * 60 * 60 * 1000;

struct ExportInput {
  std::string_view table_arn;
  ExportRecord record;  // what was asked, in the record's terms
  std::optional<double> export_time;
  std::optional<double> from_time, to_time;
};

int64_t ToMs(double seconds) { return static_cast<int64_t>(std::llround(seconds * 1000)); }

// "2026-10-09T00:41:50Z": the times InvalidExportTimeException's messages name.
std::string MessageTime(int64_t ms) {
  std::string iso = portability::IsoTime(ms);
  return iso.substr(0, 19) + "Z";
}

Status ReadIncrementalSpecification(wire::JsonObject spec, ExportInput& in,
                                    wire::ConstraintErrors& errors) {
  if (auto from = wire::Member(spec, "ExportFromTime")) {
    DDBD_ASSIGN_OR_RETURN(in.from_time, wire::AsTimestamp(*from));
  }
  if (auto to = wire::Member(spec, "ExportToTime")) {
    DDBD_ASSIGN_OR_RETURN(in.to_time, wire::AsTimestamp(*to));
  }
  DDBD_ASSIGN_OR_RETURN(
      auto view, ReadEnum(spec, "ExportViewType", "incrementalExportSpecification.exportViewType",
                          {"NEW_IMAGE", "NEW_AND_OLD_IMAGES"}, errors));
  if (view) in.record.view_type = std::string(*view);
  return OkStatus();
}

Result<ExportInput> ParseExport(wire::JsonObject body) {
  ExportInput in;
  wire::ConstraintErrors errors;
  ExportRecord& r = in.record;
  DDBD_ASSIGN_OR_RETURN(in.table_arn, ReadArn(body, "TableArn", "tableArn", 1, 1024, errors));
  if (auto time = wire::Member(body, "ExportTime")) {
    DDBD_ASSIGN_OR_RETURN(in.export_time, wire::AsTimestamp(*time));
  }
  DDBD_ASSIGN_OR_RETURN(r.client_token, ReadClientToken(body, errors));
  DDBD_ASSIGN_OR_RETURN(S3Location location, ReadS3Location(body, "", "S3Prefix", errors));
  r.bucket = std::move(location.bucket);
  r.bucket_owner = std::move(location.owner);
  r.prefix = std::move(location.prefix);
  DDBD_ASSIGN_OR_RETURN(
      auto sse, ReadEnum(body, "S3SseAlgorithm", "s3SseAlgorithm", {"AES256", "KMS"}, errors));
  if (sse) r.sse_algorithm = std::string(*sse);
  DDBD_ASSIGN_OR_RETURN(auto kms, wire::GetString(body, "S3SseKmsKeyId"));
  if (kms) r.kms_key_id = std::string(*kms);
  DDBD_ASSIGN_OR_RETURN(auto format, ReadEnum(body, "ExportFormat", "exportFormat",
                                              {"DYNAMODB_JSON", "ION"}, errors));
  if (format) r.format = std::string(*format);
  DDBD_ASSIGN_OR_RETURN(auto type, ReadEnum(body, "ExportType", "exportType",
                                            {"FULL_EXPORT", "INCREMENTAL_EXPORT"}, errors));
  r.type_sent = type.has_value();
  r.incremental = type == "INCREMENTAL_EXPORT";
  DDBD_ASSIGN_OR_RETURN(auto spec, wire::GetObject(body, "IncrementalExportSpecification"));
  if (spec) DDBD_RETURN_IF_ERROR(ReadIncrementalSpecification(*spec, in, errors));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  if (spec && !type) {
    return Error::Validation(
        "Invalid Request: Export Type expected to be Incremental Export when incremental export "
        "specification is provided");
  }
  if (spec && !r.incremental) {
    return Error::Validation(
        "Invalid Request: When Export Type is Full Export , Incremental Export Specification "
        "should not be provided");
  }
  if (r.incremental && !spec) {
    return Error::Validation(
        "Invalid Request: Incremental Export Specification expected when export type is set as "
        "Incremental Export");
  }
  if (r.incremental && !in.from_time) {
    return Error::Validation(
        "Invalid Request: ExportFromTime must be provided in IncrementalExportSpecification");
  }
  if (r.kms_key_id && r.sse_algorithm != "KMS") {
    return Error::Validation(
        "Invalid Request: KMS Key Id is not supported for this encryption type");
  }
  return in;
}

// The export's times, checked against the table's recovery window as DynamoDB checks them.
Status SetExportTimes(const TableDef& table, int64_t now, ExportInput& in) {
  ExportRecord& r = in.record;
  const int64_t earliest = backups::EarliestRestorableMs(table, now);
  if (!r.incremental) {
    if (table.pitr_enabled_ms == 0 || table.pitr_history_id == 0) {
      return Error::PointInTimeRecoveryUnavailable(
          "Point in time recovery is not enabled for table '" + table.name + "'");
    }
    r.export_time_ms = in.export_time ? ToMs(*in.export_time) : now;
    if (r.export_time_ms > now || r.export_time_ms < earliest) {
      return Error::InvalidExportTime("Export Time is invalid");
    }
    if (in.export_time && r.export_time_ms > backups::LatestRestorableMs(table, now)) {
      return Error::InvalidExportTime(
          "Point in Time Recovery is not available for specified export time");
    }
    return OkStatus();
  }
  r.from_ms = ToMs(*in.from_time);
  r.to_ms = in.to_time ? ToMs(*in.to_time) : now;
  const bool recoverable = table.pitr_enabled_ms != 0 && table.pitr_history_id != 0;
  if (!recoverable || r.from_ms < earliest || r.from_ms > r.to_ms) {
    return Error::InvalidExportTime(
        "Incremental export period from time cannot be less than the table creation time : " +
        MessageTime(recoverable ? earliest : table.creation_time_ms));
  }
  if (r.to_ms > now) {
    return Error::InvalidExportTime(
        "Incremental export period to time cannot be greater than the current time : " +
        MessageTime(now));
  }
  if (r.to_ms - r.from_ms < kMinIncrementalMs) {
    return Error::InvalidExportTime(
        "Difference between export period from time and export period to time is less than 15 "
        "minutes");
  }
  if (r.to_ms - r.from_ms > kMaxIncrementalMs) {
    return Error::InvalidExportTime(
        "Difference between export period from time and export period to time is more than 24 "
        "hours");
  }
  return OkStatus();
}

// Whether a repeated request (same ClientToken) asks for the same export.
bool SameExport(const ExportRecord& a, const ExportRecord& b) {
  return a.table_arn == b.table_arn && a.bucket == b.bucket && a.bucket_owner == b.bucket_owner &&
         a.prefix == b.prefix && a.format == b.format && a.sse_algorithm == b.sse_algorithm &&
         a.incremental == b.incremental && a.from_ms == b.from_ms && a.to_ms == b.to_ms &&
         a.view_type == b.view_type;
}

void WriteExportDescription(wire::JsonWriter& out, const ExportRecord& r) {
  const bool ended = r.status != portability::JobStatus::kInProgress;
  out.BeginObject();
  out.Key("ExportArn").String(portability::ExportArn(r));
  out.Key("ExportStatus").String(portability::JobStatusName(r.status));
  out.Key("StartTime").EpochSeconds(r.start_ms);
  if (ended) out.Key("EndTime").EpochSeconds(r.end_ms);
  if (r.status == portability::JobStatus::kCompleted) {
    out.Key("ExportManifest").String(portability::ExportManifestKey(r));
  }
  out.Key("TableArn").String(r.table_arn).Key("TableId").String(r.table_uuid);
  if (!r.incremental) out.Key("ExportTime").EpochSeconds(r.export_time_ms);
  if (r.client_token) out.Key("ClientToken").String(*r.client_token);
  out.Key("S3Bucket").String(r.bucket);
  if (r.bucket_owner) out.Key("S3BucketOwner").String(*r.bucket_owner);
  if (r.prefix) out.Key("S3Prefix").String(*r.prefix);
  out.Key("S3SseAlgorithm").String(r.sse_algorithm);
  if (r.kms_key_id) out.Key("S3SseKmsKeyId").String(*r.kms_key_id);
  if (r.failure_code) out.Key("FailureCode").String(*r.failure_code);
  if (r.failure_message) out.Key("FailureMessage").String(*r.failure_message);
  out.Key("ExportFormat").String(r.format);
  if (ended) {
    out.Key("BilledSizeBytes").Int(r.billed_size_bytes).Key("ItemCount").Int(r.item_count);
  }
  if (r.type_sent)
    out.Key("ExportType").String(r.incremental ? "INCREMENTAL_EXPORT" : "FULL_EXPORT");
  if (r.incremental) {
    out.Key("IncrementalExportSpecification").BeginObject();
    out.Key("ExportFromTime").EpochSeconds(r.from_ms).Key("ExportToTime").EpochSeconds(r.to_ms);
    out.Key("ExportViewType").String(r.view_type).EndObject();
  }
  out.EndObject();
}

std::string RenderExport(const ExportRecord& record) {
  return RenderJob("ExportDescription", record, &WriteExportDescription);
}

// The exports of the caller's namespace.
Result<std::vector<ExportRecord>> ExportsOf(OpContext& ctx) {
  return CallersJobs(ctx, ctx.service().exports().All());
}

}  // namespace

Result<std::string> ExportTableToPointInTime(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(ExportInput in, ParseExport(req.body));
  if (!in.table_arn.starts_with("arn:")) {
    return Error::Validation(
        "One or more parameter values were invalid: tableArn is not a valid ARN");
  }
  auto table = ctx.FindTableForBackup(in.table_arn);
  if (!table.ok()) return Error::TableNotFound("Table not found: " + std::string(in.table_arn));
  const int64_t now = ctx.NowMs();
  DDBD_RETURN_IF_ERROR(SetExportTimes(**table, now, in));
  ExportRecord& record = in.record;
  record.scope = ctx.scope();
  record.table_arn = (*table)->Arn();
  record.table_uuid = (*table)->table_uuid;
  record.table_id = (*table)->id;
  record.history_id = (*table)->pitr_history_id;
  if (record.client_token) {
    DDBD_ASSIGN_OR_RETURN(auto earlier, ExportsOf(ctx));
    for (const ExportRecord& other : earlier) {
      if (other.client_token != record.client_token) continue;
      if (!SameExport(other, record)) {
        return Error::ExportConflict(
            "Export conflict: Duplicate request detected with conflicting parameters");
      }
      return RenderExport(other);
    }
  } else {
    record.client_token = NewTableUuid();
  }
  record.start_ms = now;
  record.id = portability::NewJobId(now);
  DDBD_RETURN_IF_ERROR(ctx.service().exports().Start(record));
  return RenderExport(record);
}

Result<std::string> DescribeExport(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(JobArn asked, ReadJobArn(req.body, "ExportArn"));
  DDBD_ASSIGN_OR_RETURN(auto record, ctx.service().exports().Find(asked.id));
  const std::string_view arn = asked.arn;
  if (!record || record->scope != ctx.scope() || portability::ExportArn(*record) != arn) {
    return Error::ExportNotFound("Export not found: Export not found: " + std::string(arn));
  }
  return RenderExport(*record);
}

Result<std::string> ListExports(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(JobListing listing, ReadJobListing(req.body, "MaxResults"));
  const auto& table_arn = listing.table_arn;
  DDBD_ASSIGN_OR_RETURN(auto exports, ExportsOf(ctx));
  if (table_arn) {
    auto table = ctx.FindTableForBackup(*table_arn);
    std::erase_if(exports, [&](const ExportRecord& r) {
      return !table.ok() || r.table_uuid != (*table)->table_uuid;
    });
  }
  std::reverse(exports.begin(), exports.end());  // newest first
  std::vector<std::string> arns;
  for (const auto& r : exports) arns.push_back(portability::ExportArn(r));
  DDBD_ASSIGN_OR_RETURN(const PageRange page, JobPage(arns, listing));
  wire::JsonWriter out;
  out.BeginObject().Key("ExportSummaries").BeginArray();
  for (size_t i = page.begin; i < page.end; ++i) {
    out.BeginObject().Key("ExportArn").String(arns[i]);
    out.Key("ExportStatus").String(portability::JobStatusName(exports[i].status));
    out.Key("ExportType").String(exports[i].incremental ? "INCREMENTAL_EXPORT" : "FULL_EXPORT");
    out.EndObject();
  }
  EndJobPage(out, page, arns);
  return out.Take();
}

}  // namespace ddbd::server::ops
