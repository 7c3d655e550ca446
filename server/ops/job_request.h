// The members export and import requests share, read with DynamoDB's constraints: an S3
// location (a bucket, its owner, a key prefix), a client token, a job's ARN, a listing's
// table, page size and token. Violations go to the request's ConstraintErrors, named by
// `path_prefix` + the member's envelope name.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.h"
#include "portability/job_record.h"
#include "server/op_context.h"
#include "server/ops/common.h"
#include "wire/constraint_errors.h"
#include "wire/json_reader.h"
#include "wire/json_writer.h"

namespace ddbd::server::ops {

struct S3Location {
  std::string bucket;
  std::optional<std::string> owner;
  std::optional<std::string> prefix;
};

// S3Bucket (required unless `bucket_required` is false; 255 characters at most, letters and
// digits at both ends, `.`, `-`, `_` between), S3BucketOwner (12 digits) and the prefix member
// named `prefix_member` (1..1024).
Result<S3Location> ReadS3Location(wire::JsonObject object, std::string_view path_prefix,
                                  std::string_view prefix_member, wire::ConstraintErrors& errors,
                                  bool bucket_required = true);

// A ClientToken: any characters but '$', at least one.
Result<std::optional<std::string>> ReadClientToken(wire::JsonObject body,
                                                   wire::ConstraintErrors& errors);

// The ARN in member `member` ("ExportArn", "ImportArn", "BulkOperationArn") and the job id it
// ends with; the ARN must be "arn:aws:dynamodb:…/<marker>/<job id>" — the marker "export",
// "import" (the member's kind) unless `marker` names another — and ValidationException
// "Invalid Export ARN" (…) otherwise.
struct JobArn {
  std::string_view arn;
  std::string_view id;
};
Result<JobArn> ReadJobArn(wire::JsonObject body, std::string_view member,
                          std::string_view marker = {});

// The records of `all` that belong to the caller's namespace.
template <typename Record>
Result<std::vector<Record>> CallersJobs(const OpContext& ctx, Result<std::vector<Record>> all) {
  if (!all.ok()) return std::move(all).error();
  std::erase_if(*all, [&](const Record& r) { return r.scope != ctx.scope(); });
  return all;
}

// A job's answer: {"<member>": its description, as `write` writes it}.
template <typename Record>
std::string RenderJob(std::string_view member, const Record& record,
                      void (*write)(wire::JsonWriter&, const Record&)) {
  wire::JsonWriter out;
  out.BeginObject().Key(member);
  write(out, record);
  out.EndObject();
  return out.Take();
}

// Fails `record` at once (FAILED, S3NoSuchBucket, ended as it started) when `bucket` does not
// exist, as DynamoDB's job fails a few seconds after it answered; returns whether it did.
Result<bool> FailedForMissingBucket(OpContext& ctx, portability::JobRecord& record,
                                    std::string_view bucket);

// ListExports' and ListImports' members: TableArn (1..1024), the page size (`size_member`,
// 1..25) and NextToken.
struct JobListing {
  std::optional<std::string_view> table_arn;
  std::optional<int64_t> page_size;
  std::optional<std::string_view> next_token;
};
Result<JobListing> ReadJobListing(wire::JsonObject body, std::string_view size_member);

// The page of a job listing that `listing` asks for: `tokens` are the NextToken values of the
// jobs in listing order (newest first), 10 a page unless the page size says otherwise;
// ValidationException for a token that is not one of them.
Result<PageRange> JobPage(const std::vector<std::string>& tokens, const JobListing& listing);
// Closes the listing's array and adds NextToken when more jobs follow the page.
void EndJobPage(wire::JsonWriter& out, const PageRange& page,
                const std::vector<std::string>& tokens);

}  // namespace ddbd::server::ops
