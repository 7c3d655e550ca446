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

constexpr auto kTimeout = std::chrono::seconds(60);

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

Result<HttpReply> CallSigned(const AwsEndpoint& endpoint, std::string_view service,
                             const SignedCall& call) {
  try {
    boost::asio::io_context io;
    tcp::resolver resolver(io);
    beast::tcp_stream stream(io);
    stream.expires_after(kTimeout);
    stream.connect(resolver.resolve(endpoint.host, endpoint.port));
    const bhttp::verb verb = bhttp::string_to_verb(call.method);
    bhttp::request<bhttp::string_body> request{verb, call.target, 11};
    Sign(endpoint, service, call, request);
    request.body() = std::string(call.body);
    request.prepare_payload();
    bhttp::write(stream, request);
    beast::flat_buffer buffer;
    bhttp::response_parser<bhttp::string_body> parser;
    parser.body_limit(call.max_reply_bytes);
    if (verb == bhttp::verb::head) parser.skip(true);
    bhttp::read(stream, buffer, parser);
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
    return HttpReply{parser.get().result_int(), std::move(parser.get().body())};
  } catch (const std::exception& e) {
    return Error::Internal(e.what());
  }
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
