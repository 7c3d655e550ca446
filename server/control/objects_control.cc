// The control API's view of the local S3 and of the jobs that use it, for tests and tools
// that run ddbd in memory (where no directory holds the objects):
//   PUT  /ddbd/s3/<bucket>/<key>        stores the request body as the object
//   GET  /ddbd/s3/<bucket>/<key>        the object's bytes
//   GET  /ddbd/s3/<bucket>[?prefix=P]   {"Objects": [{"Key", "Size"}]}, in key order
//   GET  /ddbd/imports/<import id>/errors  an import's error records, as CloudWatch Logs
//                                          would hold them
// Keys are percent-decoded; a key may contain '/'.
#include "server/control/control_api.h"
#include "server/control/handlers.h"
#include "server/http/exchange.h"
#include "server/http/sigv4.h"
#include "wire/json_writer.h"

namespace ddbd::server::control {
namespace {

constexpr std::string_view kObjectsPrefix = "/ddbd/s3/";

// The value of `name` in the query string of `target`, decoded ("" when absent).
std::string QueryValue(std::string_view target, std::string_view name) {
  const size_t query = target.find('?');
  if (query == std::string_view::npos) return {};
  for (auto& [key, value] : http::sigv4::QueryParameters(target.substr(query + 1))) {
    if (key == name) return std::move(value);
  }
  return {};
}

Result<ControlReply> ListObjects(Service& service, const std::string& bucket,
                                 std::string_view target) {
  DDBD_ASSIGN_OR_RETURN(auto objects, service.objects().List(bucket, QueryValue(target, "prefix")));
  wire::JsonWriter out;
  out.BeginObject().Key("Objects").BeginArray();
  for (const auto& object : objects) {
    out.BeginObject().Key("Key").String(object.key);
    out.Key("Size").Int(static_cast<int64_t>(object.size)).EndObject();
  }
  out.EndArray().EndObject();
  return ControlReply{200, out.Take(), ""};
}

Result<ControlReply> AnswerObject(Service& service, const ControlRequest& request) {
  std::string_view path = request.path.substr(0, request.path.find('?'));
  path.remove_prefix(kObjectsPrefix.size());
  const size_t slash = path.find('/');
  const std::string bucket = http::sigv4::PercentDecode(path.substr(0, slash));
  if (bucket.empty()) return Error::Validation("The path names no bucket: /ddbd/s3/<bucket>/<key>");
  if (slash == std::string_view::npos || slash + 1 == path.size()) {
    if (request.method != "GET") {
      return Error::ControlMethodNotAllowed(std::string(request.method) +
                                            " is not allowed on a bucket");
    }
    return ListObjects(service, bucket, request.path);
  }
  const std::string key = http::sigv4::PercentDecode(path.substr(slash + 1));
  if (request.method == "PUT") {
    DDBD_RETURN_IF_ERROR(service.objects().Put(bucket, key, request.body));
    return ControlReply{200, "{}", ""};
  }
  if (request.method == "GET") {
    DDBD_ASSIGN_OR_RETURN(std::string bytes, service.objects().Get(bucket, key));
    return ControlReply{200, std::move(bytes), "application/octet-stream"};
  }
  return Error::ControlMethodNotAllowed(std::string(request.method) +
                                        " is not allowed on an object");
}

}  // namespace

std::optional<ControlReply> AnswerObjects(Service& service, const ControlRequest& request) {
  if (!request.path.starts_with(kObjectsPrefix)) return std::nullopt;
  Result<ControlReply> reply = AnswerObject(service, request);
  if (!reply.ok()) {
    const int status =
        reply.error().code() == ErrorCode::kResourceNotFound ? 404 : reply.error().http_status();
    return ControlReply{status, http::RenderErrorBody(reply.error()), ""};
  }
  return *std::move(reply);
}

Result<std::string> ImportErrors(Service& service, std::string_view import_id) {
  DDBD_ASSIGN_OR_RETURN(auto record, service.imports().Find(import_id));
  if (!record) {
    return Error::ControlNotFound("No import " + std::string(import_id));
  }
  wire::JsonWriter out;
  out.BeginObject().Key("LogGroupName").String("/aws-dynamodb/imports");
  out.Key("LogStreamName").String(record->id + "/error");
  out.Key("ErrorCount").Int(record->error_count);
  out.Key("Events").BeginArray();
  for (const auto& message : record->error_records) {
    out.BeginObject().Key("message").String(message).EndObject();
  }
  out.EndArray().EndObject();
  return out.Take();
}

}  // namespace ddbd::server::control
