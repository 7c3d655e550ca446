// HandleExchange: routing, protocol-level errors and the standard response headers.
#include "server/http/exchange.h"

#include <algorithm>
#include <optional>

#include <simdjson.h>
#include <zlib.h>

#include <atomic>
#include <chrono>
#include <random>

#include "server/dispatch.h"
#include "server/op_context.h"

namespace ddbd::server::http {
namespace {

constexpr std::string_view kJson10 = "application/x-amz-json-1.0";
constexpr std::string_view kJson = "application/json";
constexpr size_t kMaxBodyBytes = 16 * 1024 * 1024;

std::string_view MediaType(std::string_view content_type) {
  std::string_view media = content_type.substr(0, content_type.find(';'));
  while (!media.empty() && media.back() == ' ') media.remove_suffix(1);
  return media;
}

HttpReply UnknownOperationXml() {
  return HttpReply{404, "text/plain", "<UnknownOperationException/>\n", {}};
}

// Inflates a gzip or zlib body in place. False when it is corrupt or inflates past the limit.
bool Inflate(std::string& body) {
  z_stream stream{};
  if (inflateInit2(&stream, 15 + 32) != Z_OK) return false;
  std::string out;
  char buffer[64 * 1024];
  stream.next_in = reinterpret_cast<Bytef*>(body.data());
  stream.avail_in = static_cast<uInt>(body.size());
  int status = Z_OK;
  while (status == Z_OK) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof buffer;
    status = inflate(&stream, Z_NO_FLUSH);
    out.append(buffer, sizeof buffer - stream.avail_out);
    if (out.size() > kMaxBodyBytes) status = Z_MEM_ERROR;
    if (status == Z_BUF_ERROR && stream.avail_in == 0) break;
  }
  inflateEnd(&stream);
  if (status != Z_STREAM_END) return false;
  body = std::move(out);
  return true;
}

HttpReply JsonReply(std::string_view content_type, int status, std::string body) {
  return HttpReply{status, std::string(content_type), std::move(body), {}};
}

HttpReply ErrorReply(std::string_view content_type, const Error& error) {
  return JsonReply(content_type, error.http_status(), RenderErrorBody(error));
}

// The Access-Control-Allow-Origin a browser request from `origin` gets: "*" when every origin
// is allowed, the origin itself when it is on the -cors list, nothing otherwise.
std::optional<std::string> AllowedOrigin(const Service& service, const std::string& origin) {
  if (origin.empty()) return std::nullopt;
  const std::vector<std::string>& allowed = service.options().cors_origins;
  if (allowed.empty() || std::find(allowed.begin(), allowed.end(), "*") != allowed.end()) {
    return "*";
  }
  if (std::find(allowed.begin(), allowed.end(), origin) != allowed.end()) return origin;
  return std::nullopt;
}

HttpReply Route(Service& service, HttpRequest& request) {
  if (request.method == "OPTIONS" && !request.origin.empty()) {
    HttpReply reply{200, "", "", {}};
    if (!AllowedOrigin(service, request.origin)) return reply;  // the browser will refuse
    if (!request.access_control_request_headers.empty()) {
      reply.headers.emplace_back("Access-Control-Allow-Headers",
                                 request.access_control_request_headers);
    }
    if (!request.access_control_request_method.empty()) {
      reply.headers.emplace_back("Access-Control-Allow-Methods",
                                 request.access_control_request_method);
    }
    reply.headers.emplace_back("Access-Control-Max-Age", "172800");
    return reply;
  }
  if (request.method == "GET" && (request.path == "/" || request.path.empty())) {
    return HttpReply{200, "text/plain",
                     "healthy: dynamodb." + service.options().default_region +
                         ".amazonaws.com ",
                     {}};
  }
  if (request.method != "POST") return UnknownOperationXml();

  std::string_view media = MediaType(request.content_type);
  const bool json_media = media == kJson10 || media == kJson;
  if (!json_media && !request.body.empty()) return UnknownOperationXml();
  const std::string_view reply_type = media == kJson ? kJson : kJson10;

  if (!request.content_encoding.empty() && request.content_encoding != "identity") {
    if ((request.content_encoding != "gzip" && request.content_encoding != "deflate") ||
        !Inflate(request.body)) {
      return ErrorReply(reply_type, Error::Internal());
    }
  }

  const Operation* operation = FindOperation(request.target);
  if (!operation) return ErrorReply(reply_type, Error::UnknownOperation());

  if (service.options().require_authentication && request.authorization.empty()) {
    return ErrorReply(reply_type, Error::MissingAuthenticationToken());
  }

  thread_local simdjson::dom::parser parser;
  request.body.reserve(request.body.size() + simdjson::SIMDJSON_PADDING);
  simdjson::dom::element root;
  simdjson::dom::object body;
  if (request.body.empty() ||
      parser.parse(request.body.data(), request.body.size(), false).get(root) !=
          simdjson::SUCCESS ||
      root.get_object().get(body) != simdjson::SUCCESS) {
    return ErrorReply(reply_type, Error::Serialization());
  }

  CredentialScope credentials = ParseCredentialScope(request.authorization);
  std::string region =
      credentials.region.empty() ? service.options().default_region : credentials.region;
  OpContext ctx(service, service.ScopeOf(credentials), std::move(region), request.host);
  Result<std::string> result = Dispatch(*operation, ctx, Request{body});
  if (!result.ok()) return ErrorReply(reply_type, result.error());
  return JsonReply(reply_type, 200, std::move(result).value());
}

}  // namespace

std::string NewRequestId() {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  thread_local std::mt19937_64 random(std::random_device{}());
  std::string id(52, 'A');
  uint64_t bits = 0;
  for (size_t i = 0; i < id.size(); ++i) {
    if (i % 10 == 0) bits = random();
    id[i] = kAlphabet[bits % 36];
    bits /= 36;
  }
  return id;
}

HttpReply HandleExchange(Service& service, HttpRequest& request) {
  if (request.body.size() > kMaxBodyBytes) {
    return HttpReply{413, "", "", {}};
  }
  HttpReply reply = Route(service, request);
  reply.headers.emplace_back("x-amzn-RequestId", NewRequestId());
  uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(reply.body.data()),
                    static_cast<uInt>(reply.body.size()));
  reply.headers.emplace_back("x-amz-crc32", std::to_string(crc));
  if (auto allowed = AllowedOrigin(service, request.origin)) {
    reply.headers.emplace_back("Access-Control-Allow-Origin", *allowed);
    if (*allowed != "*") reply.headers.emplace_back("Vary", "Origin");
  }
  return reply;
}

}  // namespace ddbd::server::http
