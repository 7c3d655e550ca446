// The control API: ddbd's own endpoints under /ddbd/ on the DynamoDB port, for test suites —
// namespaces (list, drop) and their snapshots, the clock (read, freeze, advance, run),
// on-demand Time to Live sweeps, fault rules and stream triggers. JSON in and out; an error is
// {"__type", "message"} with a 4xx status: 400 ValidationException for a bad request, 404
// ddbd#NotFoundException for a path that does not exist, 405 ddbd#MethodNotAllowedException for a
// method a path does not take. The README's "Testing with ddbd" section is the user's contract.
//
// Entry points: IsControlPath, HandleControl.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/service.h"

namespace ddbd::server::control {

struct ControlRequest {
  std::string_view method;  // "GET", "PUT", "POST", "DELETE"
  std::string_view path;    // the request-target; a "?query" is ignored
  std::string_view body;    // JSON, or empty
};

struct ControlReply {
  int status = 200;
  std::string body;          // JSON, unless `content_type` says otherwise
  std::string content_type;  // empty: JSON
};

// Whether `path` is under the control API's prefix ("/ddbd" or "/ddbd/…").
bool IsControlPath(std::string_view path);

// Creates (or replaces) the triggers listed in a --triggers file:
// {"Triggers": [{"Name": …, <definition>}]}. ValidationException naming the file and the
// trigger for anything refused.
Status LoadTriggersFile(Service& service, const std::string& path);

// Answers one control request. Never throws.
ControlReply HandleControl(Service& service, const ControlRequest& request);

// The access-pattern report of the tables that exist, by namespace (report_control.cc).
std::vector<insight::NamespaceReport> BuildReport(Service& service, const insight::Prices& prices);
// The report as text, for people (report_text.cc).
std::string ReportText(const std::vector<insight::NamespaceReport>& report);
// GET /ddbd/console[/<file>]: the console (console_control.cc); nullopt for any other path.
std::optional<ControlReply> AnswerConsole(const ControlRequest& request);
// GET /ddbd/report[?format=text&<price>=…]; nullopt for any other path.
std::optional<ControlReply> AnswerReport(Service& service, const ControlRequest& request);
// /ddbd/s3/…: the local S3's objects (objects_control.cc); nullopt for any other path.
std::optional<ControlReply> AnswerObjects(Service& service, const ControlRequest& request);

}  // namespace ddbd::server::control
