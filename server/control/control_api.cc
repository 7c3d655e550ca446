// Control API routing: path and method → handler, body parsing and error replies.
#include "server/control/control_api.h"

#include <exception>
#include <functional>
#include <vector>

#include "model/log.h"
#include "model/utf8.h"
#include "server/control/handlers.h"
#include "server/http/exchange.h"

namespace ddbd::server::control {
namespace {

constexpr std::string_view kPrefix = "/ddbd";

using Params = std::vector<std::string_view>;
using Handler = std::function<Result<std::string>(Service&, const Params&, const ControlBody&)>;

struct Route {
  std::string_view method;
  std::string_view pattern;  // segments after "/ddbd/"; "{}" matches any one segment
  Handler handler;
};

const std::vector<Route>& Routes() {
  static const std::vector<Route> routes = {
      {"GET", "clock", [](Service& s, const Params&, const ControlBody&) { return GetClock(s); }},
      {"PUT", "clock",
       [](Service& s, const Params&, const ControlBody& b) { return PutClock(s, b); }},
      {"POST", "ttl/sweep",
       [](Service& s, const Params&, const ControlBody&) { return SweepTimeToLive(s); }},
      {"GET", "faults", [](Service& s, const Params&, const ControlBody&) { return GetFaults(s); }},
      {"GET", "imports/{}/errors",
       [](Service& s, const Params& p, const ControlBody&) { return ImportErrors(s, p[0]); }},
      {"PUT", "faults",
       [](Service& s, const Params&, const ControlBody& b) { return PutFaults(s, b); }},
      {"DELETE", "faults",
       [](Service& s, const Params&, const ControlBody&) { return DeleteFaults(s); }},
      {"GET", "triggers",
       [](Service& s, const Params&, const ControlBody&) { return ListTriggers(s); }},
      {"GET", "triggers/{}",
       [](Service& s, const Params& p, const ControlBody&) { return GetTrigger(s, p[0]); }},
      {"PUT", "triggers/{}",
       [](Service& s, const Params& p, const ControlBody& b) { return PutTrigger(s, p[0], b); }},
      {"DELETE", "triggers/{}",
       [](Service& s, const Params& p, const ControlBody&) { return DeleteTrigger(s, p[0]); }},
      {"GET", "namespaces",
       [](Service& s, const Params&, const ControlBody&) { return ListNamespaces(s); }},
      {"GET", "namespaces/{}",
       [](Service& s, const Params& p, const ControlBody&) { return DescribeNamespace(s, p[0]); }},
      {"DELETE", "namespaces/{}",
       [](Service& s, const Params& p, const ControlBody&) { return DeleteNamespace(s, p[0]); }},
      {"GET", "snapshots",
       [](Service& s, const Params&, const ControlBody&) { return ListSnapshots(s); }},
      {"PUT", "namespaces/{}/snapshots/{}",
       [](Service& s, const Params& p, const ControlBody&) { return SaveSnapshot(s, p[0], p[1]); }},
      {"DELETE", "namespaces/{}/snapshots/{}",
       [](Service& s, const Params& p, const ControlBody&) {
         return DeleteSnapshot(s, p[0], p[1]);
       }},
      {"POST", "namespaces/{}/snapshots/{}/restore",
       [](Service& s, const Params& p, const ControlBody&) {
         return RestoreSnapshot(s, p[0], p[1]);
       }},
      {"POST", "namespaces/{}/snapshots/{}/fork",
       [](Service& s, const Params& p, const ControlBody& b) {
         return ForkSnapshot(s, p[0], p[1], b);
       }},
  };
  return routes;
}

std::vector<std::string_view> Segments(std::string_view path) {
  std::vector<std::string_view> segments;
  while (!path.empty()) {
    const size_t slash = path.find('/');
    segments.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return segments;
}

// The parameters of `path` (segments after the prefix) under `pattern`, or nullopt.
std::optional<Params> Match(std::string_view pattern, const std::vector<std::string_view>& path) {
  const std::vector<std::string_view> wanted = Segments(pattern);
  if (wanted.size() != path.size()) return std::nullopt;
  Params params;
  for (size_t i = 0; i < wanted.size(); ++i) {
    if (wanted[i] == "{}") {
      if (path[i].empty()) return std::nullopt;
      params.push_back(path[i]);
    } else if (wanted[i] != path[i]) {
      return std::nullopt;
    }
  }
  return params;
}

Result<ControlBody> ParseBody(std::string_view text, simdjson::dom::parser& parser) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return ControlBody();
  simdjson::dom::object object;
  if (parser.parse(text.data(), text.size()).get_object().get(object) != simdjson::SUCCESS) {
    return Error::Validation("The request body must be a JSON object");
  }
  return ControlBody(object);
}

Result<std::string> Dispatch(Service& service, const ControlRequest& request) {
  std::string_view path = request.path.substr(0, request.path.find('?'));
  path.remove_prefix(kPrefix.size());
  if (!path.empty() && path.front() == '/') path.remove_prefix(1);
  if (!path.empty() && path.back() == '/') path.remove_suffix(1);
  const std::vector<std::string_view> segments = Segments(path);
  bool path_known = false;
  for (const Route& route : Routes()) {
    std::optional<Params> params = Match(route.pattern, segments);
    if (!params) continue;
    path_known = true;
    if (route.method != request.method) continue;
    simdjson::dom::parser parser;
    DDBD_ASSIGN_OR_RETURN(ControlBody body, ParseBody(request.body, parser));
    return route.handler(service, *params, body);
  }
  if (path_known) {
    return Error::ControlMethodNotAllowed(QuotableUtf8(request.method, 16) + " is not allowed on " +
                                          QuotableUtf8(request.path, 256));
  }
  return Error::ControlNotFound("No control API path " + QuotableUtf8(request.path, 256) +
                                " (see the README, \"Testing with ddbd\")");
}

}  // namespace

bool IsControlPath(std::string_view path) {
  if (!path.starts_with(kPrefix)) return false;
  const std::string_view rest = path.substr(kPrefix.size());
  return rest.empty() || rest.front() == '/' || rest.front() == '?';
}

ControlReply HandleControl(Service& service, const ControlRequest& request) {
  std::optional<ControlReply> direct;  // the console's or the report's own reply
  Result<std::string> answer = [&]() -> Result<std::string> {
    try {
      if ((direct = AnswerConsole(request)) || (direct = AnswerReport(service, request)) ||
          (direct = AnswerObjects(service, request))) {
        return std::string();
      }
      return Dispatch(service, request);
    } catch (const std::exception& e) {  // a bug: logged, answered like any other
      log::Error("control API %.*s %.*s threw: %s", static_cast<int>(request.method.size()),
                 request.method.data(), static_cast<int>(request.path.size()), request.path.data(),
                 e.what());
      return Error::Internal();
    }
  }();
  if (!answer.ok()) {
    return ControlReply{answer.error().http_status(), http::RenderErrorBody(answer.error()), ""};
  }
  if (direct) return *std::move(direct);
  return ControlReply{200, std::move(answer).value(), ""};
}

}  // namespace ddbd::server::control
