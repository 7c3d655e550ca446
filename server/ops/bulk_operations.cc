// StartBulkPutItems, DescribeBulkOperation, ListBulkOperations and CancelBulkOperation: items
// written into an existing table from objects of the local S3, each under its own optional
// condition. The operation runs in the background (portability/bulk_jobs.h); here requests
// are checked as DynamoDB checks them, records rendered, and each input record prepared as a
// PutItem of it is (PrepareBulkPut).
#include <simdjson.h>

#include <algorithm>

#include "index/index_entries.h"
#include "index/vector_entries.h"
#include "portability/bulk_jobs.h"
#include "portability/job_naming.h"
#include "server/ops/common.h"
#include "server/ops/item_request.h"
#include "server/ops/job_request.h"
#include "server/ops/ops.h"
#include "server/ops/transient_status.h"

namespace ddbd::server::ops {
namespace {

using portability::BulkRecord;
using portability::JobStatus;

// A client token answers its first request's operation for this long.
constexpr int64_t kClientTokenWindowMs = int64_t{8} * 3600 * 1000;
constexpr int64_t kMinWriteRequestUnits = 1024;

struct StartInput {
  std::string_view table_name;
  BulkRecord record;
};

Status ReadInputConfiguration(wire::JsonObject config, BulkRecord& r,
                              wire::ConstraintErrors& errors) {
  DDBD_ASSIGN_OR_RETURN(S3Location location,
                        ReadS3Location(config, "inputS3Configuration.", "S3KeyPrefix", errors));
  r.bucket = std::move(location.bucket);
  r.bucket_owner = std::move(location.owner);
  r.key_prefix = std::move(location.prefix);
  DDBD_ASSIGN_OR_RETURN(auto format,
                        ReadEnum(config, "InputFormat", "inputS3Configuration.inputFormat",
                                 {"DYNAMODB_JSON", "ION"}, errors));
  if (!format) errors.NotNull("inputS3Configuration.inputFormat");
  r.format = std::string(format.value_or("DYNAMODB_JSON"));
  DDBD_ASSIGN_OR_RETURN(auto compression, ReadEnum(config, "InputCompressionType",
                                                   "inputS3Configuration.inputCompressionType",
                                                   {"GZIP", "ZSTD", "NONE"}, errors));
  r.compression = std::string(compression.value_or("NONE"));
  return OkStatus();
}

Status ReadOutputTypes(wire::JsonObject config, BulkRecord& r, wire::ConstraintErrors& errors) {
  const std::string path = "outputS3Configuration.outputType";
  DDBD_ASSIGN_OR_RETURN(auto types, wire::GetArray(config, "OutputType"));
  if (!types) {
    errors.NotNull(path);
    return OkStatus();
  }
  std::vector<std::string> names;
  bool valid = true;
  for (auto type : *types) {
    DDBD_ASSIGN_OR_RETURN(std::string_view name, wire::AsString(type));
    valid = valid && (name == "ERROR" || name == "CONDITION_CHECK_FAILURE");
    names.emplace_back(name);
    if (!r.Reports(name)) r.output_types.emplace_back(name);
  }
  if (!valid) {
    errors.EachMember(wire::JavaList(names), path,
                      "[Member must satisfy enum value set: [ERROR, CONDITION_CHECK_FAILURE]]");
  }
  if (types->size() == 0)
    errors.Add("[]", path, "Member must have length greater than or equal to 1");
  return OkStatus();
}

Status ReadOutputConfiguration(wire::JsonObject config, BulkRecord& r,
                               wire::ConstraintErrors& errors) {
  DDBD_ASSIGN_OR_RETURN(S3Location location,
                        ReadS3Location(config, "outputS3Configuration.", "S3KeyPrefix", errors,
                                       /*bucket_required=*/false));
  if (!location.bucket.empty()) r.output_bucket = std::move(location.bucket);
  r.output_owner = std::move(location.owner);
  r.output_prefix = std::move(location.prefix);
  DDBD_ASSIGN_OR_RETURN(auto sse,
                        ReadEnum(config, "S3SseAlgorithm", "outputS3Configuration.s3SseAlgorithm",
                                 {"AES256", "KMS"}, errors));
  if (sse) r.sse_algorithm = std::string(*sse);
  DDBD_ASSIGN_OR_RETURN(auto kms, wire::GetString(config, "S3SseKmsKeyId"));
  if (kms) {
    if (kms->empty()) errors.LengthAtLeast(*kms, "outputS3Configuration.s3SseKmsKeyId", 1);
    if (kms->size() > 2048) errors.LengthAtMost(*kms, "outputS3Configuration.s3SseKmsKeyId", 2048);
    r.kms_key = std::string(*kms);
  }
  return ReadOutputTypes(config, r, errors);
}

Result<StartInput> ParseStart(wire::JsonObject body) {
  StartInput in;
  BulkRecord& r = in.record;
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(auto token, ReadClientToken(body, errors));
  DDBD_ASSIGN_OR_RETURN(auto input, wire::GetObject(body, "InputS3Configuration"));
  if (input) DDBD_RETURN_IF_ERROR(ReadInputConfiguration(*input, r, errors));
  DDBD_ASSIGN_OR_RETURN(auto output, wire::GetObject(body, "OutputS3Configuration"));
  if (output) DDBD_RETURN_IF_ERROR(ReadOutputConfiguration(*output, r, errors));
  DDBD_ASSIGN_OR_RETURN(in.table_name, ReadTableName(body, errors));
  DDBD_ASSIGN_OR_RETURN(r.max_write_units, wire::GetLong(body, "MaxWriteRequestUnits"));
  if (r.max_write_units && *r.max_write_units < kMinWriteRequestUnits) {
    errors.ValueAtLeast(std::to_string(*r.max_write_units), "maxWriteRequestUnits",
                        kMinWriteRequestUnits);
  }
  DDBD_ASSIGN_OR_RETURN(auto tier, ReadEnum(body, "PerformanceTier", "performanceTier",
                                            {"STANDARD", "ACCELERATED"}, errors));
  r.tier = std::string(tier.value_or("STANDARD"));
  if (!input) errors.NotNull("inputS3Configuration");
  if (!output) errors.NotNull("outputS3Configuration");
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  if (r.kms_key && r.sse_algorithm != "KMS") {
    return Error::Validation(
        "Invalid Request: KMS Key Id is not supported for this encryption type");
  }
  // The SDKs make up a token when the caller gives none: ddbd does the same.
  r.client_token = token ? std::move(*token) : NewTableUuid();
  r.request_digest = portability::Md5Base64(simdjson::minify(body));
  return in;
}

// DynamoDB's rule: an ACTIVE table, or an UPDATING one that is not building an index.
Status CheckTableTakesBulkPut(const TableDef& table) {
  const bool building =
      std::any_of(table.indexes.begin(), table.indexes.end(), [](const auto& index) {
        return index.status == IndexStatus::kCreating || index.backfilling;
      });
  return CheckTableChangeable(table, /*allow_updating=*/!building);
}

void WriteInputConfiguration(wire::JsonWriter& out, const BulkRecord& r) {
  out.Key("InputS3Configuration").BeginObject();
  out.Key("S3BucketOwner").String(r.bucket_owner.value_or(std::string(kAccountId)));
  out.Key("S3Bucket").String(r.bucket);
  if (r.key_prefix) out.Key("S3KeyPrefix").String(*r.key_prefix);
  out.Key("InputFormat").String(r.format).Key("InputCompressionType").String(r.compression);
  out.EndObject();
}

void WriteOutputConfiguration(wire::JsonWriter& out, const BulkRecord& r) {
  out.Key("OutputS3Configuration").BeginObject();
  if (r.output_bucket) {
    out.Key("S3BucketOwner").String(r.output_owner.value_or(std::string(kAccountId)));
    out.Key("S3Bucket").String(*r.output_bucket);
  }
  if (r.output_prefix) out.Key("S3KeyPrefix").String(*r.output_prefix);
  if (r.sse_algorithm) out.Key("S3SseAlgorithm").String(*r.sse_algorithm);
  if (r.kms_key) out.Key("S3SseKmsKeyId").String(*r.kms_key);
  out.Key("OutputType").BeginArray();
  for (const auto& type : r.output_types) out.String(type);
  out.EndArray().EndObject();
}

void WriteBytesMap(wire::JsonWriter& out, std::string_view member, std::string_view field,
                   const std::map<std::string, int64_t>& bytes) {
  if (bytes.empty()) return;
  out.Key(member).BeginObject();
  for (const auto& [name, count] : bytes)
    out.Key(name).BeginObject().Key(field).Int(count).EndObject();
  out.EndObject();
}

void WriteUsage(wire::JsonWriter& out, const BulkRecord& r) {
  const portability::BulkUsage& usage = r.usage;
  int64_t total = usage.table_bytes;
  for (const auto& [name, bytes] : usage.global_indexes) total += bytes;
  for (const auto& [name, bytes] : usage.local_indexes) total += bytes;
  out.Key("BulkOperationUsage").BeginArray().BeginObject();
  out.Key("TableName").String(r.table_name).Key("BulkPutBytes").Int(total);
  out.Key("Table").BeginObject().Key("BulkPutBytes").Int(usage.table_bytes).EndObject();
  WriteBytesMap(out, "LocalSecondaryIndexes", "BulkPutBytes", usage.local_indexes);
  WriteBytesMap(out, "GlobalSecondaryIndexes", "BulkPutBytes", usage.global_indexes);
  WriteBytesMap(out, "VectorIndexes", "BulkPutVectorBytes", usage.vector_indexes);
  out.EndObject().EndArray();
}

void WriteDescription(wire::JsonWriter& out, const BulkRecord& r) {
  out.BeginObject().Key("BulkOperationArn").String(portability::BulkArn(r));
  out.Key("BulkOperationStatus").String(portability::JobStatusName(r.status));
  out.Key("TableDetails").BeginArray().BeginObject();
  out.Key("TableName").String(r.table_name).Key("TableId").String(r.table_uuid);
  out.EndObject().EndArray();
  out.Key("ClientToken").String(r.client_token);
  WriteInputConfiguration(out, r);
  WriteOutputConfiguration(out, r);
  out.Key("StartTime").EpochSeconds(r.start_ms);
  if (portability::JobEnded(r.status)) out.Key("EndTime").EpochSeconds(r.end_ms);
  out.Key("ProcessedItemCount").Int(r.processed_items);
  out.Key("ProcessedInputBytes").Int(r.processed_bytes);
  if (r.total_bytes) out.Key("TotalInputBytes").Int(*r.total_bytes);
  WriteUsage(out, r);
  out.Key("FailedItemCount").Int(r.failed_items);
  if (r.status == JobStatus::kFailed || r.status == JobStatus::kCancelled) {
    if (r.failure_code) out.Key("FailureCode").String(*r.failure_code);
    if (r.failure_message) out.Key("FailureMessage").String(*r.failure_message);
  }
  if (r.max_write_units) out.Key("MaxWriteRequestUnits").Int(*r.max_write_units);
  out.Key("PerformanceTier").String(r.tier);
  out.EndObject();
}

std::string RenderDescription(const BulkRecord& record) {
  return RenderJob("BulkOperationDescription", record, &WriteDescription);
}

Result<std::vector<BulkRecord>> OperationsOf(OpContext& ctx) {
  return CallersJobs(ctx, ctx.service().bulk_operations().All());
}

// The operation `body` names (BulkOperationArn), or ResourceNotFoundException.
Result<BulkRecord> NamedOperation(OpContext& ctx, wire::JsonObject body, bool cancel) {
  DDBD_ASSIGN_OR_RETURN(JobArn asked, ReadJobArn(body, "BulkOperationArn", "bulk-operation"));
  auto& operations = ctx.service().bulk_operations();
  DDBD_ASSIGN_OR_RETURN(auto record, operations.Find(asked.id));
  if (!record || record->scope != ctx.scope() || portability::BulkArn(*record) != asked.arn) {
    return Error::ResourceNotFound(
        "Requested resource not found: BulkOperation: " + std::string(asked.arn) + " not found");
  }
  if (cancel) {
    DDBD_ASSIGN_OR_RETURN(record, operations.Cancel(record->id));
    if (!record) return Error::ResourceNotFound("Requested resource not found");
  }
  return std::move(*record);
}

}  // namespace

Result<portability::BulkJobs::PreparedPut> PrepareBulkPut(std::shared_ptr<const TableDef> table,
                                                          wire::JsonObject object) {
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(std::optional<Item> item, ReadAttributeMap(object, "Item", "item", errors));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  DDBD_ASSIGN_OR_RETURN(ExpressionInputs expressions, ReadExpressions(object, {.condition = true}));
  DDBD_RETURN_IF_ERROR(CheckItemSize(*item));
  DDBD_ASSIGN_OR_RETURN(PrimaryKey key, CheckPutItem(*table, *item));
  WriteRequest request;
  request.table_name = table->name;
  request.expressions = std::move(expressions);
  PreparedWrite write = Replacing(std::move(table), std::move(key), std::move(request), *item);
  return portability::BulkJobs::PreparedPut{std::move(*item), write.ToItemWrite()};
}

void MeterBulkPut(const TableDef& table, const storage::WriteOutcome& outcome,
                  portability::BulkUsage& usage) {
  if (!outcome.new_item) return;
  usage.table_bytes += static_cast<int64_t>(outcome.new_size);
  for (const IndexDef& index : table.indexes) {
    if (index.IsVector()) continue;
    auto entry = index::EntryFor(table, index, *outcome.new_item, /*with_projection=*/false);
    if (!entry) continue;
    (index.local ? usage.local_indexes : usage.global_indexes)[index.name] +=
        static_cast<int64_t>(entry->projected_size);
  }
  if (!table.HasVectorIndexes()) return;
  for (const auto& [name, bytes] :
       index::VectorWriteBytes(table, outcome.old_item, outcome.new_item)) {
    usage.vector_indexes[name] += bytes;
  }
}

Result<std::string> StartBulkPutItems(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(StartInput in, ParseStart(req.body));
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTable(in.table_name));
  BulkRecord& record = in.record;
  DDBD_ASSIGN_OR_RETURN(auto earlier, OperationsOf(ctx));
  for (const BulkRecord& other : earlier) {
    if (other.client_token != record.client_token ||
        other.start_ms + kClientTokenWindowMs < ctx.NowMs()) {
      continue;
    }
    if (other.request_digest != record.request_digest) {
      return Error::IdempotentParameterMismatch(
          "The client token was already used for a bulk operation with other parameters");
    }
    return RenderDescription(other);
  }
  DDBD_RETURN_IF_ERROR(CheckTableTakesBulkPut(*table));
  record.scope = ctx.scope();
  record.start_ms = ctx.NowMs();
  record.id = portability::NewJobId(record.start_ms);
  record.table_arn = table->Arn();
  record.table_uuid = table->table_uuid;
  record.table_id = table->id;
  record.table_name = table->name;
  const BulkRecord answered = record;  // IN_PROGRESS, whatever comes next
  DDBD_ASSIGN_OR_RETURN(bool failed, FailedForMissingBucket(ctx, record, record.bucket));
  if (!failed && record.output_bucket) {
    DDBD_ASSIGN_OR_RETURN(failed, FailedForMissingBucket(ctx, record, *record.output_bucket));
  }
  DDBD_RETURN_IF_ERROR(ctx.service().bulk_operations().Start(record));
  return RenderDescription(answered);
}

Result<std::string> DescribeBulkOperation(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(BulkRecord record, NamedOperation(ctx, req.body, /*cancel=*/false));
  return RenderDescription(record);
}

Result<std::string> CancelBulkOperation(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(BulkRecord record, NamedOperation(ctx, req.body, /*cancel=*/true));
  wire::JsonWriter out;
  out.BeginObject().Key("BulkOperationArn").String(portability::BulkArn(record));
  out.Key("BulkOperationStatus").String(portability::JobStatusName(record.status));
  out.EndObject();
  return out.Take();
}

Result<std::string> ListBulkOperations(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(JobListing listing, ReadJobListing(req.body, "MaxResults"));
  DDBD_ASSIGN_OR_RETURN(auto operations, OperationsOf(ctx));
  std::reverse(operations.begin(), operations.end());  // newest first
  std::vector<std::string> arns;
  for (const auto& r : operations) arns.push_back(portability::BulkArn(r));
  DDBD_ASSIGN_OR_RETURN(const PageRange page, JobPage(arns, listing));
  wire::JsonWriter out;
  out.BeginObject().Key("BulkOperationsSummaryList").BeginArray();
  for (size_t i = page.begin; i < page.end; ++i) {
    const BulkRecord& r = operations[i];
    out.BeginObject().Key("BulkOperationArn").String(arns[i]);
    out.Key("BulkOperationStatus").String(portability::JobStatusName(r.status));
    out.Key("StartTime").EpochSeconds(r.start_ms);
    if (portability::JobEnded(r.status)) out.Key("EndTime").EpochSeconds(r.end_ms);
    out.EndObject();
  }
  EndJobPage(out, page, arns);
  return out.Take();
}

}  // namespace ddbd::server::ops
