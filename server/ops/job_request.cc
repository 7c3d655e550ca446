// S3 locations and client tokens, as DynamoDB validates them.
#include "server/ops/job_request.h"

#include <algorithm>
#include <cctype>

#include "portability/job_naming.h"
#include "server/ops/common.h"
#include "server/service.h"

namespace ddbd::server::ops {
namespace {

bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// ^[a-z0-9A-Z]+[\.\-\w]*[a-z0-9A-Z]+$
bool IsBucketName(std::string_view name) {
  if (name.size() < 2 || !IsAlnum(name.front()) || !IsAlnum(name.back())) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return IsAlnum(c) || c == '.' || c == '-' || c == '_'; });
}

}  // namespace

Result<S3Location> ReadS3Location(wire::JsonObject object, std::string_view path_prefix,
                                  std::string_view prefix_member, wire::ConstraintErrors& errors,
                                  bool bucket_required) {
  S3Location location;
  const std::string prefix(path_prefix);
  DDBD_ASSIGN_OR_RETURN(auto bucket, wire::GetString(object, "S3Bucket"));
  if (!bucket) {
    if (bucket_required) errors.NotNull(prefix + "s3Bucket");
  } else {
    if (bucket->size() > 255) errors.LengthAtMost(*bucket, prefix + "s3Bucket", 255);
    if (!IsBucketName(*bucket)) {
      errors.Pattern(*bucket, prefix + "s3Bucket", "^[a-z0-9A-Z]+[\\.\\-\\w]*[a-z0-9A-Z]+$");
    }
    location.bucket = std::string(*bucket);
  }
  DDBD_ASSIGN_OR_RETURN(auto owner, wire::GetString(object, "S3BucketOwner"));
  if (owner) {
    if (!IsAccountId(*owner)) errors.Pattern(*owner, prefix + "s3BucketOwner", "[0-9]{12}");
    location.owner = std::string(*owner);
  }
  DDBD_ASSIGN_OR_RETURN(auto key_prefix, wire::GetString(object, prefix_member));
  if (key_prefix) {
    const std::string path = prefix + wire::EnvelopeName(prefix_member);
    if (key_prefix->empty()) errors.LengthAtLeast(*key_prefix, path, 1);
    if (key_prefix->size() > 1024) errors.LengthAtMost(*key_prefix, path, 1024);
    location.prefix = std::string(*key_prefix);
  }
  return location;
}

Result<std::optional<std::string>> ReadClientToken(wire::JsonObject body,
                                                   wire::ConstraintErrors& errors) {
  DDBD_ASSIGN_OR_RETURN(auto token, wire::GetString(body, "ClientToken"));
  if (!token) return std::optional<std::string>();
  if (token->empty() || token->find('$') != std::string_view::npos) {
    errors.Pattern(*token, "clientToken", "^[^\\$]+$");
  }
  return std::optional<std::string>(std::string(*token));
}

Result<JobArn> ReadJobArn(wire::JsonObject body, std::string_view member,
                          std::string_view arn_marker) {
  const std::string_view kind = member.substr(0, member.size() - 3);  // "Export" of "ExportArn"
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(std::string_view arn,
                        ReadArn(body, member, wire::EnvelopeName(member), 37, 1024, errors));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  const std::string marker =
      "/" + (arn_marker.empty() ? wire::EnvelopeName(kind) : std::string(arn_marker)) + "/";
  const size_t at = arn.rfind(marker);
  if (!arn.starts_with("arn:aws:dynamodb:") || at == std::string_view::npos ||
      !portability::IsJobId(arn.substr(at + marker.size()))) {
    return Error::Validation("Invalid " + std::string(kind) + " ARN");
  }
  return JobArn{arn, arn.substr(at + marker.size())};
}

Result<bool> FailedForMissingBucket(OpContext& ctx, portability::JobRecord& record,
                                    std::string_view bucket) {
  DDBD_ASSIGN_OR_RETURN(bool exists, ctx.service().objects().HasBucket(bucket));
  if (exists) return false;
  record.status = portability::JobStatus::kFailed;
  record.end_ms = record.start_ms;
  record.failure_code = "S3NoSuchBucket";
  record.failure_message =
      "The specified bucket does not exist (Service: Amazon S3; Status Code: 404; Error Code: "
      "NoSuchBucket)";
  return true;
}

Result<JobListing> ReadJobListing(wire::JsonObject body, std::string_view size_member) {
  JobListing listing;
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(listing.table_arn, wire::GetString(body, "TableArn"));
  if (const auto& arn = listing.table_arn) {
    if (arn->empty()) errors.LengthAtLeast(*arn, "tableArn", 1);
    if (arn->size() > 1024) errors.LengthAtMost(*arn, "tableArn", 1024);
  }
  DDBD_ASSIGN_OR_RETURN(listing.page_size, wire::GetLong(body, size_member));
  const std::string path = wire::EnvelopeName(size_member);
  if (const auto& size = listing.page_size) {
    if (*size < 1) errors.ValueAtLeast(std::to_string(*size), path, 1);
    if (*size > 25) errors.ValueAtMost(std::to_string(*size), path, 25);
  }
  DDBD_ASSIGN_OR_RETURN(listing.next_token, wire::GetString(body, "NextToken"));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  return listing;
}

Result<PageRange> JobPage(const std::vector<std::string>& tokens, const JobListing& listing) {
  const auto& next_token = listing.next_token;
  if (next_token && std::find(tokens.begin(), tokens.end(), *next_token) == tokens.end()) {
    return Error::Validation("Invalid Request: Provided nextToken is invalid: " +
                             std::string(*next_token));
  }
  return PageAfter(tokens, next_token, static_cast<size_t>(listing.page_size.value_or(10)));
}

void EndJobPage(wire::JsonWriter& out, const PageRange& page,
                const std::vector<std::string>& tokens) {
  out.EndArray();
  if (page.more) out.Key("NextToken").String(tokens[page.end - 1]);
  out.EndObject();
}

}  // namespace ddbd::server::ops
