// The S3 members of exports, imports and bulk operations — a bucket, its owner, a key prefix,
// a client token — read with DynamoDB's constraints (violations go to the request's
// ConstraintErrors, named by `path_prefix` + the member's envelope name).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "model/result.h"
#include "wire/constraint_errors.h"
#include "wire/json_reader.h"

namespace ddbd::server::ops {

struct S3Location {
  std::string bucket;
  std::optional<std::string> owner;
  std::optional<std::string> prefix;
};

// S3Bucket (required; 255 characters at most, letters and digits at both ends, `.`, `-`, `_`
// between), S3BucketOwner (12 digits) and the prefix member named `prefix_member` (1..1024).
Result<S3Location> ReadS3Location(wire::JsonObject object, std::string_view path_prefix,
                                  std::string_view prefix_member, wire::ConstraintErrors& errors);

// A ClientToken: any characters but '$', at least one.
Result<std::optional<std::string>> ReadClientToken(wire::JsonObject body,
                                                   wire::ConstraintErrors& errors);

}  // namespace ddbd::server::ops
