// Invoking a trigger's target with one batch: an HTTP POST (through HttpClient, implemented
// where the HTTP client lives) or a command run by /bin/sh -c with the batch on standard
// input and the handler's answer on standard output. Either way the result says whether the
// function failed, as Lambda decides it: a non-2xx status, an X-Amz-Function-Error header, a
// body that is an error object ({"errorType", "errorMessage"}, as the Lambda runtime
// interface emulator answers an unhandled error), a non-zero exit, no answer within the
// timeout, or no connection.
//
// Entry points: HttpClient, Invoke, RunCommand.
// Thread-safety: Invoke may be called from any thread; `cancelled` ends a call early.
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <string_view>

#include "model/result.h"

namespace ddbd::triggers {

class HttpClient {
 public:
  struct Reply {
    unsigned status = 0;
    bool function_error = false;  // an X-Amz-Function-Error header
    std::string body;
  };
  virtual ~HttpClient() = default;
  // POSTs `body` (application/json) to `url` (http://host:port/path). Internal error saying
  // why when no whole reply came within `timeout`, or once `cancelled` is set.
  virtual Result<Reply> Post(std::string_view url, std::string_view body,
                             std::chrono::milliseconds timeout,
                             const std::atomic<bool>& cancelled) = 0;
};

struct CommandResult {
  int exit_status = 0;  // as a shell reports it: 128 + the signal for a killed process
  std::string output;   // standard output
  std::string errors;   // the end of standard error (its last 4 KB)
};

// Runs `command` with `input` on standard input, in its own process group (killed whole on
// timeout or cancellation). Internal error when it could not be started, ran past `timeout`
// or was cancelled.
Result<CommandResult> RunCommand(const std::string& command, std::string_view input,
                                 std::chrono::milliseconds timeout,
                                 const std::atomic<bool>& cancelled);

struct Invocation {
  bool function_error = false;
  std::string error;     // why it failed, for the log and the trigger's LastError
  std::string response;  // what the handler answered (a partial batch response, or nothing)
};

struct Target {
  std::string_view url;  // one of the two
  std::string_view command;
  std::chrono::milliseconds timeout{60'000};
};

// Delivers `payload` to `target`. `http` may be null when the target is a command.
Invocation Invoke(const Target& target, HttpClient* http, std::string_view payload,
                  const std::atomic<bool>& cancelled);

}  // namespace ddbd::triggers
