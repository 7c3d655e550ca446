// S3 locations and client tokens, as DynamoDB validates them.
#include "server/ops/s3_location.h"

#include <algorithm>
#include <cctype>

namespace ddbd::server::ops {
namespace {

bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// ^[a-z0-9A-Z]+[\.\-\w]*[a-z0-9A-Z]+$
bool IsBucketName(std::string_view name) {
  if (name.size() < 2 || !IsAlnum(name.front()) || !IsAlnum(name.back())) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return IsAlnum(c) || c == '.' || c == '-' || c == '_'; });
}

bool IsAccountId(std::string_view owner) {
  return owner.size() == 12 &&
         std::all_of(owner.begin(), owner.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

Result<S3Location> ReadS3Location(wire::JsonObject object, std::string_view path_prefix,
                                  std::string_view prefix_member, wire::ConstraintErrors& errors) {
  S3Location location;
  const std::string prefix(path_prefix);
  DDBD_ASSIGN_OR_RETURN(auto bucket, wire::GetString(object, "S3Bucket"));
  if (!bucket) {
    errors.NotNull(prefix + "s3Bucket");
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
    std::string path = prefix + std::string(prefix_member);
    path[prefix.size()] = static_cast<char>(std::tolower(path[prefix.size()]));
    if (path.starts_with(prefix + "s3")) path[prefix.size() + 1] = '3';
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

}  // namespace ddbd::server::ops
