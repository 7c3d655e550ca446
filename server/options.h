// Command-line options of the ddbd binary: ddbd's own long options and DynamoDB Local's
// spellings. Entry point: ParseCommandLine.
#pragma once

#include <string>
#include <vector>

#include "model/log.h"
#include "server/http/server.h"
#include "server/service.h"
#include "storage/database.h"

namespace ddbd::server {

struct CommandLine {
  http::ServerOptions server;
  storage::OpenOptions storage;
  ServiceOptions service;
  bool help = false;
  log::Level log_level = log::Level::kInfo;
  log::Format log_format = log::Format::kText;
  bool health_check = false;         // ask a running ddbd (--address/--port) whether it answers
  bool max_connections_set = false;  // --max-connections given: not derived from the fd limit
  std::vector<std::string> notes;    // printed to stderr at start-up
  bool compat_set = false;           // --compat given: a DynamoDB Local command line keeps it
  bool dynamodb_local_jar = false;   // the command line starts "-jar DynamoDBLocal.jar"
  std::string report_on_exit;        // where to write the access-pattern report at shutdown
  std::string triggers_file;         // --triggers: stream triggers created at start-up
};

// Fails with a message for unknown or malformed options.
Result<CommandLine> ParseCommandLine(const std::vector<std::string>& args);
std::string UsageText();

}  // namespace ddbd::server
