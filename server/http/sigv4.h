// AWS Signature Version 4, as DynamoDB checks it: pure functions from a request as received
// (method, request-target, headers, body bytes) to a verified identity or DynamoDB's error.
// Signatures come in the Authorization header or in a presigned query string (X-Amz-*).
//
// Entry points: Verify (the whole check, in DynamoDB's order of errors), HasSignature (is
// there anything to check at all), and the steps it is made of — ParseSignature,
// CanonicalRequest, StringToSign, SigningKey, SignatureOf — exposed for unit tests against
// AWS's published test vectors. Sign builds an Authorization header (tests, --health-check).
// No I/O, no clock: the caller passes `now`. Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/result.h"
#include "server/credentials.h"

namespace ddbd::server::http::sigv4 {

using Clock = std::chrono::system_clock;
using Header = std::pair<std::string, std::string>;  // name (any case), value as received

inline constexpr std::string_view kAlgorithm = "AWS4-HMAC-SHA256";
inline constexpr std::string_view kService = "dynamodb";
// How far a signature's date may be from the server's clock, either way.
inline constexpr std::chrono::minutes kAllowedSkew{15};
// The longest X-Amz-Expires a presigned request may have (seven days).
inline constexpr int64_t kMaxExpiresSeconds = 7 * 24 * 3600;

// The parts of a request a signature covers. Borrowed: valid while the request is.
struct RequestView {
  std::string_view method;
  std::string_view target;  // path plus optional "?query", exactly as on the request line
  std::span<const Header> headers;
  std::string_view body;  // as sent: before any Content-Encoding is undone
};

// What a request claims about its signature, before any of it is checked against a key.
struct SignedRequest {
  bool presigned = false;          // from the query string rather than Authorization
  std::string algorithm;           // "AWS4-HMAC-SHA256"
  std::string credential;          // "AKID/20150830/us-east-1/dynamodb/aws4_request"
  std::string signed_headers;      // "host;x-amz-date", as sent
  std::string signature;           // lowercase hex, as sent
  std::string timestamp;           // ISO-8601 basic format, YYYYMMDD'T'HHMMSS'Z'
  Clock::time_point time;          // `timestamp` as a time
  std::optional<int64_t> expires;  // X-Amz-Expires of a presigned request
  std::string security_token;      // X-Amz-Security-Token, header or query
  // S3's rules (Sign with service "s3"): the path is canonical as sent — encoded once by the
  // sender, not normalised, not encoded again.
  bool s3 = false;
};

// Who signed a request that verified.
struct Identity {
  std::string access_key;
  std::string region;
};

// True when the request carries an Authorization header or presigned query parameters —
// anything that is not "unsigned" (MissingAuthenticationTokenException).
bool HasSignature(const RequestView& request);

// Reads the claimed signature: MissingAuthenticationToken without one, IncompleteSignature
// when a part is missing or the date is not ISO-8601 basic format.
Result<SignedRequest> ParseSignature(const RequestView& request);

// Verifies `request` against `credentials` at time `now`, reporting the first failure in the
// order DynamoDB does: MissingAuthenticationToken, IncompleteSignature (missing parts, date
// format), InvalidSignature (date outside ±15 minutes or past X-Amz-Expires), InvalidSignature
// (Host not signed), IncompleteSignature (algorithm, credential shape), InvalidSignature
// (credential scope), UnrecognizedClient (unknown key), InvalidSignature (signature),
// UnrecognizedClient (session token).
Result<Identity> Verify(const RequestView& request, const Credentials& credentials,
                        Clock::time_point now);

// AWS's UriEncode: every byte but the unreserved ones (and '/' when `keep_slash`) as %XY.
std::string UriEncode(std::string_view text, bool keep_slash);
// %XY escapes decoded; '+' stays a plus, as AWS reads query strings.
std::string PercentDecode(std::string_view text);
// The parameters of a query string (after the '?'), decoded, in request order.
std::vector<std::pair<std::string, std::string>> QueryParameters(std::string_view query);

// The steps of the computation (AWS's "Create a signed AWS API request").
std::string CanonicalUri(std::string_view path);
// `drop_signature` leaves out X-Amz-Signature (presigned requests).
std::string CanonicalQuery(std::string_view query, bool drop_signature);
// "name:value\n" per signed header, values of repeated headers joined with ',' and each value
// trimmed with inner runs of spaces folded to one.
std::string CanonicalHeaders(std::span<const Header> headers,
                             std::span<const std::string_view> signed_names);
std::string CanonicalRequest(const RequestView& request, const SignedRequest& signed_request,
                             std::string_view payload_hash);
// `scope` is "date/region/service/aws4_request".
std::string StringToSign(std::string_view timestamp, std::string_view scope,
                         std::string_view canonical_request);
std::string SigningKey(std::string_view secret, std::string_view date, std::string_view region,
                       std::string_view service);
std::string SignatureOf(std::string_view signing_key, std::string_view string_to_sign);
std::string Sha256Hex(std::string_view data);
std::string FormatTimestamp(Clock::time_point time);  // YYYYMMDD'T'HHMMSS'Z'
std::optional<Clock::time_point> ParseTimestamp(std::string_view text);

// The Authorization header value for `request` signed with the given key at `timestamp`,
// over the headers named in `signed_names` (lowercase, sorted; they must be in `request`).
std::string Sign(const RequestView& request, std::span<const std::string_view> signed_names,
                 std::string_view access_key, std::string_view secret, std::string_view region,
                 std::string_view timestamp, std::string_view service = kService);

}  // namespace ddbd::server::http::sigv4
