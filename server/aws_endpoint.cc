// Signed HTTP calls to AWS-compatible endpoints.
#include "server/aws_endpoint.h"

#include <algorithm>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cstdlib>

#include "server/http/sigv4.h"

namespace ddbd::server {
namespace {

namespace beast = boost::beast;
namespace bhttp = beast::http;
using tcp = boost::asio::ip::tcp;

// Signs `request` (whose headers the call's are) over its body: host, the payload hash,
// the date, the call's headers and a session token when there is one.
void Sign(const AwsEndpoint& endpoint, std::string_view service, const SignedCall& call,
          bhttp::request<bhttp::string_body>& request) {
  const std::string host = endpoint.host + (endpoint.port == "80" ? "" : ":" + endpoint.port);
  const std::string timestamp = http::sigv4::FormatTimestamp(http::sigv4::Clock::now());
  std::vector<http::sigv4::Header> headers = {
      {"host", host},
      {"x-amz-content-sha256", http::sigv4::Sha256Hex(call.body)},
      {"x-amz-date", timestamp}};
  for (const auto& header : call.headers) headers.push_back(header);
  if (!endpoint.session_token.empty()) {
    headers.emplace_back("x-amz-security-token", endpoint.session_token);
  }
  std::vector<std::string_view> names;
  for (const auto& [name, value] : headers) names.push_back(name);
  std::sort(names.begin(), names.end());
  const std::string target(request.target());
  const std::string authorization = http::sigv4::Sign(
      {std::string_view(request.method_string()), target, headers, call.body}, names,
      endpoint.access_key, endpoint.secret_key, endpoint.region, timestamp, service);
  for (const auto& [name, value] : headers) request.set(name, value);
  request.set(bhttp::field::authorization, authorization);
}

}  // namespace

std::string AwsEndpoint::Describe() const { return "http://" + host + ":" + port + base_path; }

namespace {

// One exchange of `request` with the endpoint, bounded by the call's timeout and ended early
// when the call is cancelled (the loop looks every 100 ms).
Result<HttpReply> Exchange(const AwsEndpoint& endpoint, const SignedCall& call,
                           bhttp::request<bhttp::string_body>& request) {
  boost::asio::io_context io;
  tcp::resolver resolver(io);
  beast::tcp_stream stream(io);
  beast::flat_buffer buffer;
  bhttp::response_parser<bhttp::string_body> parser;
  parser.body_limit(call.max_reply_bytes);
  if (request.method() == bhttp::verb::head) parser.skip(true);
  beast::error_code failure;
  bool done = false;
  auto fail = [&](beast::error_code error) {
    failure = error;
    done = true;
  };
  stream.expires_after(call.timeout);
  resolver.async_resolve(endpoint.host, endpoint.port, [&](beast::error_code error, auto results) {
    if (error) return fail(error);
    stream.async_connect(results, [&](beast::error_code error, const auto&) {
      if (error) return fail(error);
      bhttp::async_write(stream, request, [&](beast::error_code error, size_t) {
        if (error) return fail(error);
        bhttp::async_read(stream, buffer, parser,
                          [&](beast::error_code error, size_t) { fail(error); });
      });
    });
  });
  while (!done && !io.stopped()) {
    io.run_for(std::chrono::milliseconds(100));
    if (!done && call.cancelled && call.cancelled->load()) {
      return Error::Internal("cancelled: the server is stopping");
    }
  }
  if (failure == beast::error::timeout) {
    return Error::Internal("no answer within " + std::to_string(call.timeout.count()) + " ms");
  }
  if (failure) return Error::Internal(failure.message());
  beast::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  HttpReply reply{parser.get().result_int(), std::move(parser.get().body())};
  reply.function_error = parser.get().find("x-amz-function-error") != parser.get().end();
  return reply;
}

Result<HttpReply> Send(const AwsEndpoint& endpoint, std::string_view service,
                       const SignedCall& call) {
  try {
    const bhttp::verb verb = bhttp::string_to_verb(call.method);
    bhttp::request<bhttp::string_body> request{verb, call.target, 11};
    if (service.empty()) {
      request.set(bhttp::field::host,
                  endpoint.host + (endpoint.port == "80" ? "" : ":" + endpoint.port));
      for (const auto& [name, value] : call.headers) request.set(name, value);
    } else {
      Sign(endpoint, service, call, request);
    }
    request.body() = std::string(call.body);
    request.prepare_payload();
    return Exchange(endpoint, call, request);
  } catch (const std::exception& e) {
    return Error::Internal(e.what());
  }
}

}  // namespace

Result<HttpReply> CallSigned(const AwsEndpoint& endpoint, std::string_view service,
                             const SignedCall& call) {
  return Send(endpoint, service, call);
}

Result<HttpReply> Call(const AwsEndpoint& endpoint, const SignedCall& call) {
  return Send(endpoint, "", call);
}

Result<AwsEndpoint> ParseAwsEndpoint(std::string_view url, std::string_view flag) {
  constexpr std::string_view kScheme = "http://";
  if (!url.starts_with(kScheme)) {
    return Error::Validation(std::string(flag) + " must be an http:// URL (https is not spoken)");
  }
  url.remove_prefix(kScheme.size());
  AwsEndpoint endpoint;
  const size_t slash = url.find('/');
  std::string_view authority = url.substr(0, slash);
  if (slash != std::string_view::npos) {
    std::string_view path = url.substr(slash);
    while (path.ends_with('/')) path.remove_suffix(1);
    endpoint.base_path = std::string(path);
  }
  const size_t colon = authority.rfind(':');
  if (colon != std::string_view::npos) {
    endpoint.port = std::string(authority.substr(colon + 1));
    authority = authority.substr(0, colon);
  }
  if (authority.empty() || endpoint.port.empty() ||
      endpoint.port.find_first_not_of("0123456789") != std::string::npos) {
    return Error::Validation(std::string(flag) +
                             " needs a host and a numeric port: http://host:port");
  }
  endpoint.host = std::string(authority);
  return endpoint;
}

void ReadAwsCredentials(AwsEndpoint& endpoint) {
  auto env = [](const char* name) {
    const char* value = std::getenv(name);
    return std::string(value ? value : "");
  };
  endpoint.access_key = env("AWS_ACCESS_KEY_ID");
  endpoint.secret_key = env("AWS_SECRET_ACCESS_KEY");
  endpoint.session_token = env("AWS_SESSION_TOKEN");
  const std::string region =
      !env("AWS_REGION").empty() ? env("AWS_REGION") : env("AWS_DEFAULT_REGION");
  if (!region.empty()) endpoint.region = region;
}

}  // namespace ddbd::server
