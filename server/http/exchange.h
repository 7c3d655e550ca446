// The HTTP front end's transport-independent core: one request in, one reply out, following
// DynamoDB's order of checks (spec/limits.md §1.4). The Beast session (server.cc) only moves
// bytes; tests drive HandleExchange directly.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/error.h"
#include "server/service.h"

namespace ddbd::server::http {

struct HttpRequest {
  std::string method;  // "POST", "GET", …
  std::string path;    // the request-target: path plus any "?query", as sent
  std::string content_type;
  std::string content_encoding;
  std::string accept_encoding;  // the last Accept-Encoding header, as DynamoDB reads it
  std::string target;           // X-Amz-Target
  std::string namespace_name;   // X-Ddbd-Namespace: the table namespace, when named
  std::string authorization;
  std::string host;
  std::string origin;
  std::string access_control_request_headers;
  std::string access_control_request_method;
  std::string body;
  // Every header as received, in order, names as sent: what a signature covers (filled only
  // when signatures are verified, --credentials).
  std::vector<std::pair<std::string, std::string>> headers;
};

struct HttpReply {
  int status = 200;
  std::string content_type;  // empty: no Content-Type header
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // besides the standard ones
  std::string_view error_type;  // the exception's short name when an error body is sent
  std::string error_message;    // and its message
  std::string table;            // the request's TableName, when it has one (for the log)
  double read_units = 0;        // the capacity units the request consumed (for the log)
  double write_units = 0;
  // How long to wait before sending (an injected delay); the wait holds no thread.
  std::chrono::milliseconds delay{0};
};

// Processes one request. Never throws.
HttpReply HandleExchange(Service& service, HttpRequest& request);

// The reply to a connection beyond the server's limit: 503 ServiceUnavailable, which the SDKs
// retry after a back-off.
HttpReply ConnectionLimitReply(int max_connections);

// The reply to a request whose HTTP framing is broken (request line, header, chunking,
// Content-Length) or too large (413): an empty body; the connection is closed after it.
HttpReply FramingErrorReply(int status);

// The JSON body of an error reply, with the message under the member DynamoDB uses.
std::string RenderErrorBody(const Error& error);

// 52 characters of [A-Z0-9], like DynamoDB's request ids.
std::string NewRequestId();

}  // namespace ddbd::server::http
