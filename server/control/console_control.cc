// GET /ddbd/console[/<file>]: the console's page and its files (console/assets.h). The page
// talks to the DynamoDB API and the control API on this same port, from the browser.
#include "console/assets.h"
#include "model/utf8.h"
#include "server/control/control_api.h"
#include "server/http/exchange.h"

namespace ddbd::server::control {

std::optional<ControlReply> AnswerConsole(const ControlRequest& request) {
  constexpr std::string_view kConsole = "/ddbd/console";
  std::string_view path = request.path.substr(0, request.path.find('?'));
  if (!path.starts_with(kConsole)) return std::nullopt;
  path.remove_prefix(kConsole.size());
  if (!path.empty() && path.front() != '/') return std::nullopt;
  if (!path.empty()) path.remove_prefix(1);
  const std::optional<console::Asset> asset = console::FindAsset(path);
  std::optional<Error> error;
  if (!asset) {
    error = Error::ControlNotFound("The console has no file " + QuotableUtf8(path, 256));
  } else if (request.method != "GET") {
    error = Error::ControlMethodNotAllowed(QuotableUtf8(request.method, 16) +
                                           " is not allowed on " + QuotableUtf8(request.path, 256));
  }
  if (error) return ControlReply{error->http_status(), http::RenderErrorBody(*error), ""};
  return ControlReply{200, std::string(asset->body), std::string(asset->content_type)};
}

}  // namespace ddbd::server::control
