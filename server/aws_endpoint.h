// An endpoint of an AWS-compatible service that ddbd calls over plain HTTP — the local S3
// (--s3-endpoint) and Kinesis (--kinesis-endpoint): where it is, the credentials of the
// usual AWS environment variables, and one SigV4-signed HTTP/1.1 exchange with it (a
// connection per call). Requests are signed at the wall clock's time, not the controllable
// clock's: the service checks a signature's time against its own.
//
// Entry points: AwsEndpoint, ParseAwsEndpoint, ReadAwsCredentials, CallSigned.
// Thread-safety: CallSigned may be called from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/result.h"

namespace ddbd::server {

struct AwsEndpoint {
  std::string host;  // as in the URL: a name or an IPv4 address
  std::string port = "80";
  std::string base_path;  // the URL's path, without its trailing '/'
  // From AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN and AWS_REGION (or
  // AWS_DEFAULT_REGION; us-east-1 when neither is set).
  std::string access_key;
  std::string secret_key;
  std::string session_token;
  std::string region = "us-east-1";

  // "http://host:port/path", for messages.
  std::string Describe() const;
};

// "http://host[:port][/path]"; ValidationException naming `flag` for anything else (https
// is not spoken).
Result<AwsEndpoint> ParseAwsEndpoint(std::string_view url, std::string_view flag);
// Reads the credentials and region from the environment into `endpoint`.
void ReadAwsCredentials(AwsEndpoint& endpoint);

struct HttpReply {
  unsigned status = 0;
  std::string body;
};

struct SignedCall {
  std::string_view method;  // "GET", "PUT", "HEAD", "POST"
  std::string target;       // path and query, as on the request line
  // Further headers, signed too (lowercase names).
  std::vector<std::pair<std::string, std::string>> headers;
  std::string_view body;
  uint64_t max_reply_bytes = uint64_t{1} << 30;
};

// Sends `call`, signed for `service` ("s3", "kinesis") with the endpoint's credentials, and
// reads the reply (any status). Internal error, with the cause, when no reply came.
Result<HttpReply> CallSigned(const AwsEndpoint& endpoint, std::string_view service,
                             const SignedCall& call);

}  // namespace ddbd::server
