// HandleExchange: routing, protocol-level errors and the standard response headers.
#include "server/http/exchange.h"

#include <simdjson.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <random>

#include "model/log.h"
#include "server/control/control_api.h"
#include "server/dispatch.h"
#include "server/fault_injection.h"
#include "server/http/content_coding.h"
#include "server/http/crc32.h"
#include "server/http/sigv4.h"
#include "server/op_context.h"
#include "server/resource_access.h"
#include "wire/json_writer.h"

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

HttpReply JsonReply(std::string_view content_type, int status, std::string body) {
  return HttpReply{status, std::string(content_type), std::move(body), {}};
}

HttpReply ErrorReply(std::string_view content_type, const Error& error) {
  HttpReply reply = JsonReply(content_type, error.http_status(), RenderErrorBody(error));
  reply.error_type = error.name();
  reply.error_message = error.message();
  return reply;
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

// The host the health answer names: the one the client called (DynamoDB answers with its
// own endpoint's name), without the port; DynamoDB's endpoint in the default region when
// the request named none. Pinned by: test_http.py::test_health_check_names_the_host_called
std::string HealthyHost(const Service& service, std::string_view host) {
  if (!host.empty() && host.front() == '[') {
    host = host.substr(0, host.find(']') + 1);  // an IPv6 literal keeps its brackets
  } else {
    host = host.substr(0, host.find(':'));
  }
  if (host.empty()) return "dynamodb." + service.options().default_region + ".amazonaws.com";
  return std::string(host);
}

// The headers a browser script may read: the ones DynamoDB exposes. Not x-amz-crc32, so a
// browser SDK never checks a CRC against a body the browser has decompressed.
constexpr std::string_view kExposedHeaders =
    "x-amzn-RequestId,x-amzn-ErrorType,x-amzn-ErrorMessage,Date";

// Compresses a body of at least 4 KB when the client accepts gzip or deflate, as DynamoDB
// does. Pinned by: test_http.py::test_large_replies_are_compressed
void CompressReply(const HttpRequest& request, HttpReply& reply) {
  if (reply.body.size() < kCompressionThreshold) return;
  const ResponseCoding coding = ChooseResponseCoding(request.accept_encoding);
  if (coding == ResponseCoding::kIdentity || !Compress(coding, reply.body)) return;
  reply.headers.emplace_back("Content-Encoding", std::string(ContentCodingName(coding)));
}

// ddbd's own health answer (DynamoDB's GET / always says healthy): 503 with the reason while
// storage refuses writes. Pinned by:
// test_connections.py::test_storage_io_errors_are_reported_and_recovered
HttpReply HealthReply(Service& service) {
  const Status health = service.db().Health();
  wire::JsonWriter out;
  out.BeginObject().Key("status").String(health.ok() ? "healthy" : "unhealthy");
  if (!health.ok()) out.Key("reason").String(health.error().message());
  out.EndObject();
  return JsonReply(kJson, health.ok() ? 200 : 503, out.Take());
}

// The request's TableName, for the log; empty when it has none.
std::string TableNameOf(simdjson::dom::object body) {
  std::string_view table;
  return body["TableName"].get_string().get(table) == simdjson::SUCCESS ? std::string(table) : "";
}

// DynamoDB Local's answer to an unsigned request such as GET /, which readiness checks
// written for it (@shelf/jest-dynamodb's, `curl` loops in CI scripts) wait for: 400 with its
// own MissingAuthenticationToken body. Only under --compat dynamodb-local.
HttpReply DynamoDbLocalRootReply() {
  return JsonReply(kJson10, 400,
                   R"({"__type":"com.amazonaws.dynamodb.v20120810#MissingAuthenticationToken",)"
                   R"("message":"Request must contain either a valid (registered) AWS access key )"
                   R"(ID or X.509 certificate."})");
}

// With --credentials, the request's SigV4 signature verified against the known keys, over
// the body as sent (still compressed, not yet parsed); with --require-auth alone, only the
// presence of a signature; otherwise nothing. The identity is empty when not verified.
// Pinned by: test_auth.py
Result<std::optional<sigv4::Identity>> Authenticate(const Service& service,
                                                    const HttpRequest& request) {
  const sigv4::RequestView view{request.method, request.path, request.headers, request.body};
  if (const Credentials* credentials = service.options().credentials.get()) {
    DDBD_ASSIGN_OR_RETURN(sigv4::Identity identity,
                          sigv4::Verify(view, *credentials, std::chrono::system_clock::now()));
    return std::optional<sigv4::Identity>(std::move(identity));
  }
  if (service.options().require_authentication && request.authorization.empty() &&
      !sigv4::HasSignature(view)) {
    return Error::MissingAuthenticationToken();
  }
  return std::optional<sigv4::Identity>();
}

// /ddbd/…: the control API, or 404 when it is off (--no-control-api).
HttpReply AnswerControl(Service& service, const HttpRequest& request) {
  if (!service.options().control_api) {
    return ErrorReply(kJson, Error::ControlNotFound("The control API is off (--no-control-api)"));
  }
  control::ControlReply answer =
      control::HandleControl(service, {request.method, request.path, request.body});
  if (!answer.content_type.empty()) {
    return HttpReply{answer.status, std::move(answer.content_type), std::move(answer.body), {}};
  }
  return JsonReply(kJson, answer.status, std::move(answer.body));
}

// The table namespace of a DynamoDB request: the X-Ddbd-Namespace header's when present,
// else the credential scope's under --isolate, else the default namespace.
// Pinned by: test_namespaces.py
Result<std::string> RequestScope(const Service& service, const HttpRequest& request,
                                 const CredentialScope& credentials) {
  if (!request.namespace_name.empty()) return Service::ScopeOfNamespace(request.namespace_name);
  return service.ScopeOf(credentials);
}

// The request in the access-pattern report: on each table it consumed from or — throttled,
// having consumed nothing — on the table it named.
void ReportRequest(Service& service, const Operation& operation, OpContext& ctx, const Request& req,
                   std::string_view error_type) {
  const bool throttled = error_type == "ProvisionedThroughputExceededException" ||
                         error_type == "ThrottlingException" ||
                         error_type == "RequestLimitExceeded";
  boost::container::small_vector<uint64_t, 2> tables;
  for (const auto& [site, figures] : ctx.consumption().sites()) {
    if (std::find(tables.begin(), tables.end(), site.table_id) == tables.end()) {
      tables.push_back(site.table_id);
    }
  }
  if (tables.empty() && throttled) {
    if (auto table = ctx.catalog().Find(ctx.scope(), TableNameOf(req.body))) {
      tables.push_back(table->id);
    }
  }
  if (!tables.empty()) service.access_patterns().RecordRequest(tables, operation.name, throttled);
}

// Runs the operation (under an injected fault when a rule picks it) and answers; counts what
// it consumed.
HttpReply Answer(Service& service, const Operation& operation, OpContext& ctx, const Request& req,
                 std::string_view reply_type) {
  std::chrono::milliseconds delay{0};
  Result<std::string> result = [&]() -> Result<std::string> {
    DDBD_RETURN_IF_ERROR(CheckResourcePolicies(ctx, operation.name, req));
    if (service.faults().empty()) return Dispatch(operation, ctx, req);
    std::optional<faults::Fault> fault =
        service.faults().Decide(RequestFactsOf(ctx, operation.name, req));
    if (!fault) return Dispatch(operation, ctx, req);
    return DispatchUnderFault(operation, ctx, req, *fault, delay);
  }();
  HttpReply reply = result.ok() ? JsonReply(reply_type, 200, std::move(result).value())
                                : ErrorReply(reply_type, result.error());
  reply.delay = delay;
  if (const Consumption& consumed = ctx.consumption(); !consumed.sites().empty()) {
    service.metrics().CountConsumption(consumed);
    reply.read_units = consumed.ReadUnits();
    reply.write_units = consumed.WriteUnits();
  }
  ReportRequest(service, operation, ctx, req, reply.error_type);
  // Only the log shows it: read when the request is logged (every failure may be).
  if (service.options().log_requests || !result.ok()) reply.table = TableNameOf(req.body);
  return reply;
}

// `operation`: what the request's X-Amz-Target names (null when it names none).
HttpReply Route(Service& service, HttpRequest& request, const Operation* operation) {
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
  if (request.method == "GET" && request.path == "/ddbd/health") return HealthReply(service);
  if (request.method == "GET" && request.path == "/metrics") {
    return HttpReply{
        200, "text/plain; version=0.0.4; charset=utf-8", service.metrics().Render(service), {}};
  }
  if (control::IsControlPath(request.path)) return AnswerControl(service, request);
  if (request.method == "GET" && (request.path == "/" || request.path.empty())) {
    if (service.options().compat == CompatProfile::kDynamoDbLocal) return DynamoDbLocalRootReply();
    std::string body = "healthy: " + HealthyHost(service, request.host) + " ";
    return HttpReply{200, "text/plain", std::move(body), {}};
  }
  if (request.method != "POST") return UnknownOperationXml();

  std::string_view media = MediaType(request.content_type);
  const bool json_media = media == kJson10 || media == kJson;
  if (!json_media && !request.body.empty()) return UnknownOperationXml();
  const std::string_view reply_type = media == kJson ? kJson : kJson10;

  if (!operation) return ErrorReply(reply_type, Error::UnknownOperation());

  Result<std::optional<sigv4::Identity>> identity = Authenticate(service, request);
  if (!identity.ok()) return ErrorReply(reply_type, identity.error());

  if (!request.content_encoding.empty() && request.content_encoding != "identity") {
    if ((request.content_encoding != "gzip" && request.content_encoding != "deflate") ||
        !Inflate(request.body, kMaxBodyBytes)) {
      return ErrorReply(reply_type, Error::Internal());
    }
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

  CredentialScope credentials = *identity ? CredentialScope{std::move((*identity)->access_key),
                                                            std::move((*identity)->region)}
                                          : ParseCredentialScope(request.authorization);
  std::string region =
      credentials.region.empty() ? service.options().default_region : credentials.region;
  Result<std::string> scope = RequestScope(service, request, credentials);
  if (!scope.ok()) return ErrorReply(reply_type, scope.error());
  OpContext ctx(service, std::move(scope).value(), std::move(region), request.host);
  if (*identity)
    ctx.set_caller("arn:aws:iam::" + std::string(kAccountId) + ":user/" + credentials.access_key);
  return Answer(service, *operation, ctx, Request{body}, reply_type);
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

HttpReply ConnectionLimitReply(int max_connections) {
  const Error error = Error::ServiceUnavailable("ddbd is serving its maximum of " +
                                                std::to_string(max_connections) +
                                                " connections (--max-connections); retry later");
  HttpReply reply = ErrorReply(kJson10, error);
  reply.headers.emplace_back("x-amzn-RequestId", NewRequestId());
  return reply;
}

HttpReply FramingErrorReply(int status) {
  HttpReply reply{status, "", "", {}};
  reply.headers.emplace_back("x-amzn-RequestId", NewRequestId());
  return reply;
}

namespace {

// Capacity units for the log: left out when none were consumed.
log::Field UnitsField(std::string_view key, double units) {
  return units == 0 ? log::Field(key, std::string()) : log::Field(key, units, 1);
}

// The request log (--log-requests): one line per request, with the id the client got; and,
// whatever the options, the cause of every answer of status 500 or above.
void LogRequest(const Service& service, const HttpRequest& request, const Operation* known,
                const HttpReply& reply, std::string_view request_id, double ms) {
  const bool failed = reply.status >= 500;
  if (!failed && !service.options().log_requests) return;
  std::string_view operation = request.target.empty() ? request.path : request.target;
  operation =
      operation.substr(operation.find('.') == std::string_view::npos ? 0 : operation.find('.') + 1);
  if (known) operation = known->name;
  log::Event(failed ? log::Level::kError : log::Level::kInfo, failed ? "request failed" : "request",
             {{"id", std::string(request_id)},
              {"method", request.method},
              {"operation", std::string(operation)},
              {"table", reply.table},
              {"status", int64_t{reply.status}},
              {"error", std::string(reply.error_type)},
              UnitsField("read_units", reply.read_units),
              UnitsField("write_units", reply.write_units),
              {"cause", failed ? reply.error_message : std::string()},
              {"ms", ms, 3}});
}

}  // namespace

HttpReply HandleExchange(Service& service, HttpRequest& request) {
  if (request.body.size() > kMaxBodyBytes) {
    return HttpReply{413, "", "", {}};
  }
  const auto started = std::chrono::steady_clock::now();
  const Operation* operation = FindOperation(request.target);
  HttpReply reply = Route(service, request, operation);
  CompressReply(request, reply);
  std::string request_id = NewRequestId();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (operation) service.metrics().CountRequest(operation->name, reply.error_type, seconds);
  LogRequest(service, request, operation, reply, request_id, seconds * 1000);
  reply.headers.emplace_back("x-amzn-RequestId", std::move(request_id));
  // Over the bytes sent, compressed or not: what DynamoDB covers and the SDKs check.
  reply.headers.emplace_back("x-amz-crc32", std::to_string(Crc32(reply.body)));
  if (auto allowed = AllowedOrigin(service, request.origin)) {
    reply.headers.emplace_back("Access-Control-Allow-Origin", *allowed);
    reply.headers.emplace_back("Access-Control-Expose-Headers", std::string(kExposedHeaders));
    if (*allowed != "*") reply.headers.emplace_back("Vary", "Origin");
  }
  return reply;
}

}  // namespace ddbd::server::http
