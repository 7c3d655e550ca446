// The local S3 on an S3-compatible server (--s3-endpoint URL): objects::ObjectStore over
// S3's REST API — HeadBucket, PutObject, GetObject, ListObjectsV2 — path-style
// (URL/bucket/key), signed with SigV4 (service "s3") by the credentials of the usual AWS
// environment variables. It lives in server/ because the HTTP client (Boost.Beast) and the
// signing (http/sigv4) do. Its requests are signed at the wall clock's time, not the
// controllable clock's: S3 checks a signature's time against its own.
//
// Buckets are the server's: unlike the directory and memory stores, writing to a bucket that
// does not exist fails (an export then fails with S3NoSuchBucket, as in DynamoDB).
//
// Entry points: S3Endpoint, ParseS3Endpoint, OpenS3Endpoint.
#pragma once

#include <memory>
#include <string>

#include "model/result.h"
#include "objects/object_store.h"

namespace ddbd::server {

struct S3Endpoint {
  std::string host;  // as in the URL: a name or an IPv4 address
  std::string port = "80";
  std::string base_path;  // the URL's path, without its trailing '/'
  // From AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN and AWS_REGION (or
  // AWS_DEFAULT_REGION; us-east-1 when neither is set).
  std::string access_key;
  std::string secret_key;
  std::string session_token;
  std::string region = "us-east-1";
};

// "http://host[:port][/path]"; ValidationException for anything else (https is not spoken).
Result<S3Endpoint> ParseS3Endpoint(std::string_view url);
// Reads the credentials and region from the environment into `endpoint`.
void ReadS3Credentials(S3Endpoint& endpoint);
std::unique_ptr<objects::ObjectStore> OpenS3Endpoint(S3Endpoint endpoint);

}  // namespace ddbd::server
