// An endpoint that ddbd calls over plain HTTP — the local S3 (--s3-endpoint), Kinesis
// (--kinesis-endpoint) and stream triggers' handlers: where it is, the credentials of the
// usual AWS environment variables, and one HTTP/1.1 exchange with it (a connection per call),
// SigV4-signed for AWS services. Requests are signed at the wall clock's time, not the
// controllable clock's: the service checks a signature's time against its own. Every
// exchange is bounded by its timeout (connecting, sending and the whole reply).
//
// Entry points: AwsEndpoint, ParseAwsEndpoint, ReadAwsCredentials, CallSigned, Call.
// Thread-safety: CallSigned may be called from any thread.
#pragma once

#include <atomic>
#include <chrono>
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
  bool function_error = false;  // an X-Amz-Function-Error header (a Lambda handler's failure)
};

struct SignedCall {
  std::string_view method;  // "GET", "PUT", "HEAD", "POST"
  std::string target;       // path and query, as on the request line
  // Further headers, signed too (lowercase names).
  std::vector<std::pair<std::string, std::string>> headers;
  std::string_view body;
  uint64_t max_reply_bytes = uint64_t{1} << 30;
  std::chrono::milliseconds timeout{60'000};
  const std::atomic<bool>* cancelled = nullptr;  // when set, ends the exchange early
};

// Sends `call`, signed for `service` ("s3", "kinesis") with the endpoint's credentials, and
// reads the reply (any status). Internal error, with the cause, when no reply came.
Result<HttpReply> CallSigned(const AwsEndpoint& endpoint, std::string_view service,
                             const SignedCall& call);
// The same without a signature (a handler's URL): the headers are sent as they are.
Result<HttpReply> Call(const AwsEndpoint& endpoint, const SignedCall& call);

}  // namespace ddbd::server
