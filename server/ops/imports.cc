// ImportTable, DescribeImport and ListImports: a new table loaded from objects of the local S3
// in DynamoDB's import formats. The table is created here (CREATING) and loaded in the
// background (portability/import_jobs.h); requests are checked as DynamoDB checks them.
#include <simdjson.h>

#include <algorithm>

#include "portability/import_jobs.h"
#include "portability/job_naming.h"
#include "server/ops/common.h"
#include "server/ops/item_request.h"
#include "server/ops/job_request.h"
#include "server/ops/ops.h"
#include "server/ops/table_definition.h"

namespace ddbd::server::ops {
namespace {

using portability::ImportRecord;

struct ImportInput {
  ImportRecord record;
  TableDef definition;
};

Status ReadCsvOptions(wire::JsonObject body, ImportRecord& r, wire::ConstraintErrors& errors) {
  DDBD_ASSIGN_OR_RETURN(auto options, wire::GetObject(body, "InputFormatOptions"));
  if (!options) return OkStatus();
  r.format_options_sent = true;
  DDBD_ASSIGN_OR_RETURN(auto csv, wire::GetObject(*options, "Csv"));
  if (!csv) return OkStatus();
  DDBD_ASSIGN_OR_RETURN(auto delimiter, wire::GetString(*csv, "Delimiter"));
  if (delimiter) {
    if (delimiter->size() != 1) {
      errors.LengthAtMost(*delimiter, "inputFormatOptions.csv.delimiter", 1);
    }
    if (delimiter->size() != 1 ||
        std::string_view(",;:|\t ").find((*delimiter)[0]) == std::string_view::npos) {
      errors.Pattern(*delimiter, "inputFormatOptions.csv.delimiter", "[,;:|\\t ]");
    }
    r.delimiter = std::string(*delimiter);
  }
  DDBD_ASSIGN_OR_RETURN(auto headers, wire::GetArray(*csv, "HeaderList"));
  if (headers) {
    r.header_list.emplace();
    for (auto header : *headers) {
      DDBD_ASSIGN_OR_RETURN(std::string_view name, wire::AsString(header));
      r.header_list->emplace_back(name);
    }
    if (r.header_list->empty() || r.header_list->size() > 255) {
      errors.Add(std::nullopt, "inputFormatOptions.csv.headerList",
                 "Member must have length between 1 and 255");
    }
  }
  return OkStatus();
}

Result<ImportInput> ParseImport(OpContext& ctx, wire::JsonObject body) {
  ImportInput in;
  ImportRecord& r = in.record;
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(auto token, ReadClientToken(body, errors));
  DDBD_ASSIGN_OR_RETURN(auto source, wire::GetObject(body, "S3BucketSource"));
  if (source) {
    DDBD_ASSIGN_OR_RETURN(S3Location location,
                          ReadS3Location(*source, "s3BucketSource.", "S3KeyPrefix", errors));
    r.bucket = std::move(location.bucket);
    r.bucket_owner = std::move(location.owner);
    r.key_prefix = std::move(location.prefix);
  }
  DDBD_ASSIGN_OR_RETURN(auto format, ReadEnum(body, "InputFormat", "inputFormat",
                                              {"DYNAMODB_JSON", "ION", "CSV"}, errors));
  DDBD_RETURN_IF_ERROR(ReadCsvOptions(body, r, errors));
  DDBD_ASSIGN_OR_RETURN(auto compression,
                        ReadEnum(body, "InputCompressionType", "inputCompressionType",
                                 {"ZSTD", "NONE", "GZIP"}, errors));
  DDBD_ASSIGN_OR_RETURN(auto parameters, wire::GetObject(body, "TableCreationParameters"));
  if (!token) errors.NotNull("clientToken");
  if (!source) errors.NotNull("s3BucketSource");
  if (!format) errors.NotNull("inputFormat");
  if (!parameters) errors.NotNull("tableCreationParameters");
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  r.client_token = std::move(*token);
  r.format = std::string(*format);
  r.compression = std::string(compression.value_or("NONE"));
  if (r.format_options_sent && r.format != "CSV") {
    return Error::Validation(
        "Invalid Request: Unsupported InputFormatOptions for the given input format: " + r.format +
        ".");
  }
  r.creation_parameters = simdjson::minify(*parameters);
  DDBD_ASSIGN_OR_RETURN(in.definition, DefineTable(ctx, *parameters, DefinitionSite::kImportTable));
  return in;
}

std::string RegionOf(const ImportRecord& r) {
  // arn:aws:dynamodb:<region>:...
  const size_t begin = std::string_view("arn:aws:dynamodb:").size();
  return r.table_arn.substr(begin, r.table_arn.find(':', begin) - begin);
}

void WriteSource(wire::JsonWriter& out, const ImportRecord& r) {
  out.Key("S3BucketSource").BeginObject();
  out.Key("S3BucketOwner").String(r.bucket_owner.value_or(std::string(kAccountId)));
  out.Key("S3Bucket").String(r.bucket);
  if (r.key_prefix) out.Key("S3KeyPrefix").String(*r.key_prefix);
  out.EndObject();
  out.Key("CloudWatchLogGroupArn")
      .String("arn:aws:logs:" + RegionOf(r) + ":" + std::string(kAccountId) +
              ":log-group:/aws-dynamodb/imports:*");
}

void WriteImportDescription(wire::JsonWriter& out, const ImportRecord& r) {
  const bool ended = r.status != portability::JobStatus::kInProgress;
  out.BeginObject().Key("ImportArn").String(portability::ImportArn(r));
  out.Key("ImportStatus").String(portability::JobStatusName(r.status));
  out.Key("TableArn").String(r.table_arn).Key("TableId").String(r.table_uuid);
  out.Key("ClientToken").String(r.client_token);
  out.Key("ErrorCount").Int(ended ? r.error_count : 0);
  WriteSource(out, r);
  out.Key("InputFormat").String(r.format);
  if (r.format_options_sent) {
    out.Key("InputFormatOptions").BeginObject().Key("Csv").BeginObject();
    if (r.delimiter) out.Key("Delimiter").String(*r.delimiter);
    if (r.header_list) {
      out.Key("HeaderList").BeginArray();
      for (const auto& header : *r.header_list) out.String(header);
      out.EndArray();
    }
    out.EndObject().EndObject();
  }
  out.Key("InputCompressionType").String(r.compression);
  out.Key("TableCreationParameters").Raw(r.creation_parameters);
  out.Key("StartTime").EpochSeconds(r.start_ms);
  if (ended) {
    out.Key("EndTime").EpochSeconds(r.end_ms);
    out.Key("ProcessedSizeBytes").Int(r.processed_bytes);
  }
  out.Key("ProcessedItemCount").Int(ended ? r.processed_items : 0);
  out.Key("ImportedItemCount").Int(ended ? r.imported_items : 0);
  if (r.failure_code) out.Key("FailureCode").String(*r.failure_code);
  if (r.failure_message) out.Key("FailureMessage").String(*r.failure_message);
  out.EndObject();
}

std::string RenderImport(const ImportRecord& record) {
  return RenderJob("ImportTableDescription", record, &WriteImportDescription);
}

Result<std::vector<ImportRecord>> ImportsOf(OpContext& ctx) {
  return CallersJobs(ctx, ctx.service().imports().All());
}

}  // namespace

Result<PrimaryKey> CheckImportedItem(const TableDef& table, const Item& item) {
  DDBD_RETURN_IF_ERROR(CheckItemSize(item));
  return CheckPutItem(table, item);
}

Result<std::string> ImportTable(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(ImportInput in, ParseImport(ctx, req.body));
  TableDef& definition = in.definition;
  // A replay of an import still running answers that import (or its conflict) before the
  // table's existence is checked: DynamoDB creates the table only as the import ends, where
  // ddbd's exists (CREATING) from the start.
  DDBD_ASSIGN_OR_RETURN(auto earlier, ImportsOf(ctx));
  for (const ImportRecord& other : earlier) {
    if (other.client_token != in.record.client_token ||
        other.status != portability::JobStatus::kInProgress) {
      continue;
    }
    if (other.table_arn != definition.Arn()) {
      return Error::ImportConflict(
          "Import conflict: Duplicate request detected with conflicting parameters");
    }
    return RenderImport(other);
  }
  if (ctx.catalog().Find(ctx.scope(), definition.name)) {
    return Error::ResourceInUse("Table already exists: " + definition.name);
  }
  ImportRecord& record = in.record;
  record.scope = ctx.scope();
  record.start_ms = ctx.NowMs();
  record.id = portability::NewJobId(record.start_ms);
  record.table_arn = definition.Arn();
  record.table_uuid = definition.table_uuid;
  const ImportRecord answered = record;  // IN_PROGRESS, whatever comes next
  DDBD_ASSIGN_OR_RETURN(bool failed, FailedForMissingBucket(ctx, record, record.bucket));
  if (!failed) {
    definition.status = TableStatus::kCreating;
    DDBD_ASSIGN_OR_RETURN(auto table, ctx.catalog().Create(std::move(definition)));
    record.table_id = table->id;
  }
  DDBD_RETURN_IF_ERROR(ctx.service().imports().Start(record));
  return RenderImport(answered);
}

Result<std::string> DescribeImport(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(JobArn asked, ReadJobArn(req.body, "ImportArn"));
  DDBD_ASSIGN_OR_RETURN(auto record, ctx.service().imports().Find(asked.id));
  const std::string_view arn = asked.arn;
  if (!record || record->scope != ctx.scope() || portability::ImportArn(*record) != arn) {
    return Error::ImportNotFound("Import not found: " + std::string(arn));
  }
  return RenderImport(*record);
}

namespace {

// ListImports' NextToken: the last import's ARN in hex, padded with zero bytes to a whole
// number of 16-digit groups (DynamoDB's tokens match ([0-9a-f]{16})+).
std::string ImportToken(std::string_view arn) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  for (unsigned char c : arn) {
    token.push_back(kHex[c >> 4]);
    token.push_back(kHex[c & 15]);
  }
  while (token.size() % 16 != 0 || token.size() < 112) token.append("00");
  return token;
}

}  // namespace

Result<std::string> ListImports(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(JobListing listing, ReadJobListing(req.body, "PageSize"));
  const auto& table_arn = listing.table_arn;
  DDBD_ASSIGN_OR_RETURN(auto imports, ImportsOf(ctx));
  if (table_arn) {
    std::erase_if(imports, [&](const ImportRecord& r) { return r.table_arn != *table_arn; });
  }
  std::stable_sort(imports.begin(), imports.end(), [](const auto& a, const auto& b) {
    return a.start_ms > b.start_ms || (a.start_ms == b.start_ms && a.id > b.id);
  });  // newest first
  std::vector<std::string> tokens;
  for (const auto& r : imports) tokens.push_back(ImportToken(portability::ImportArn(r)));
  DDBD_ASSIGN_OR_RETURN(const PageRange page, JobPage(tokens, listing));
  wire::JsonWriter out;
  out.BeginObject().Key("ImportSummaryList").BeginArray();
  for (size_t i = page.begin; i < page.end; ++i) {
    const ImportRecord& r = imports[i];
    out.BeginObject().Key("ImportArn").String(portability::ImportArn(r));
    out.Key("ImportStatus").String(portability::JobStatusName(r.status));
    out.Key("TableArn").String(r.table_arn);
    WriteSource(out, r);
    out.Key("InputFormat").String(r.format).Key("StartTime").EpochSeconds(r.start_ms);
    if (r.status != portability::JobStatus::kInProgress) out.Key("EndTime").EpochSeconds(r.end_ms);
    out.EndObject();
  }
  EndJobPage(out, page, tokens);
  return out.Take();
}

}  // namespace ddbd::server::ops
