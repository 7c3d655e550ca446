// The control API: ddbd's own endpoints under /ddbd/ on the DynamoDB port, for test suites —
// namespaces (list, drop), the clock (read, freeze, advance, run) and on-demand Time to Live
// sweeps. JSON in and out; an error is {"__type", "message"} with a 4xx status: 400
// ValidationException for a bad request, 404 ddbd#NotFoundException for a path that does not
// exist, 405 ddbd#MethodNotAllowedException for a method a path does not take. The README's
// "Testing with ddbd" section is the user's contract.
//
// Entry points: IsControlPath, HandleControl.
#pragma once

#include <string>
#include <string_view>

#include "server/service.h"

namespace ddbd::server::control {

struct ControlRequest {
  std::string_view method;  // "GET", "PUT", "POST", "DELETE"
  std::string_view path;    // the request-target; a "?query" is ignored
  std::string_view body;    // JSON, or empty
};

struct ControlReply {
  int status = 200;
  std::string body;  // JSON
};

// Whether `path` is under the control API's prefix ("/ddbd" or "/ddbd/…").
bool IsControlPath(std::string_view path);

// Answers one control request. Never throws.
ControlReply HandleControl(Service& service, const ControlRequest& request);

}  // namespace ddbd::server::control
