// Invoking trigger targets: the function-error rules, and commands run with the batch on
// standard input.
#include "triggers/invoker.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "wire/json_reader.h"

extern char** environ;

namespace ddbd::triggers {
namespace {

constexpr size_t kMaxErrorTail = 4096;
constexpr size_t kMaxOutputBytes = 6 * 1024 * 1024;  // a synchronous invocation's answer limit

// An answer that is Lambda's error object: {"errorMessage": …, "errorType": …}.
std::optional<std::string> ErrorObject(std::string_view body) {
  simdjson::dom::parser parser;
  simdjson::dom::object object;
  if (parser.parse(body.data(), body.size()).get_object().get(object) != simdjson::SUCCESS) {
    return std::nullopt;
  }
  auto type = wire::Member(object, "errorType");
  auto message = wire::Member(object, "errorMessage");
  if (!type && !message) return std::nullopt;
  std::string_view type_text, message_text;
  if (type)
    if (type->get_string().get(type_text) != simdjson::SUCCESS) type_text = {};
  if (message)
    if (message->get_string().get(message_text) != simdjson::SUCCESS) message_text = {};
  return std::string(type_text) + (type_text.empty() ? "" : ": ") + std::string(message_text);
}

std::string Shorten(std::string_view text) {
  if (text.size() <= 512) return std::string(text);
  return std::string(text.substr(0, 512)) + "…";
}

// Closes the descriptor it holds.
struct Descriptor {
  int fd = -1;
  ~Descriptor() { Close(); }
  void Close() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

// Blocks SIGPIPE in the calling thread while it lives, and discards one raised meanwhile:
// writing to a handler that exits without reading its input must not end the process (the
// server ignores SIGPIPE, but this must not depend on it).
class SigpipeBlocked {
 public:
  SigpipeBlocked() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_, &previous_);
  }
  ~SigpipeBlocked() {
    const timespec no_wait{};
    while (sigtimedwait(&pipe_, nullptr, &no_wait) > 0) {
    }
    pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
  }

 private:
  sigset_t pipe_;
  sigset_t previous_;
};

class Child {
 public:
  ~Child() {
    if (pid_ > 0) {
      ::kill(-pid_, SIGKILL);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
  }

  Status Start(const std::string& command, Descriptor& in, Descriptor& out, Descriptor& err) {
    int pipes[3][2];
    for (auto& pipe : pipes) {
      if (::pipe2(pipe, O_CLOEXEC) != 0) return Error::Internal(std::strerror(errno));
    }
    in.fd = pipes[0][1];
    out.fd = pipes[1][0];
    err.fd = pipes[2][0];
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipes[0][0], 0);
    posix_spawn_file_actions_adddup2(&actions, pipes[1][1], 1);
    posix_spawn_file_actions_adddup2(&actions, pipes[2][1], 2);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    posix_spawnattr_setflags(
        &attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&attributes, 0);
    sigset_t signals;
    sigemptyset(&signals);
    posix_spawnattr_setsigmask(&attributes, &signals);
    sigaddset(&signals, SIGPIPE);  // the server ignores it; the handler should not
    posix_spawnattr_setsigdefault(&attributes, &signals);
    const char* argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
    const int spawned = posix_spawn(&pid_, "/bin/sh", &actions, &attributes,
                                    const_cast<char* const*>(argv), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    ::close(pipes[0][0]);
    ::close(pipes[1][1]);
    ::close(pipes[2][1]);
    if (spawned != 0) {
      pid_ = -1;
      return Error::Internal("could not start /bin/sh: " + std::string(std::strerror(spawned)));
    }
    return OkStatus();
  }

  // The exit status once it has ended (waits for it).
  int Wait() {
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
  }

 private:
  pid_t pid_ = -1;
};

}  // namespace

Result<CommandResult> RunCommand(const std::string& command, std::string_view input,
                                 std::chrono::milliseconds timeout,
                                 const std::atomic<bool>& cancelled) {
  const SigpipeBlocked sigpipe_blocked;
  Descriptor in, out, err;
  Child child;
  DDBD_RETURN_IF_ERROR(child.Start(command, in, out, err));
  ::fcntl(in.fd, F_SETFL, O_NONBLOCK);
  CommandResult result;
  size_t written = 0;
  if (input.empty()) in.Close();
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buffer[65536];
  while (out.fd >= 0 || err.fd >= 0) {
    if (cancelled.load()) return Error::Internal("cancelled: the server is stopping");
    const auto left = deadline - std::chrono::steady_clock::now();
    if (left <= std::chrono::milliseconds(0)) {
      return Error::Internal("timed out after " + std::to_string(timeout.count() / 1000) + " s");
    }
    pollfd fds[3] = {{in.fd, POLLOUT, 0}, {out.fd, POLLIN, 0}, {err.fd, POLLIN, 0}};
    ::poll(fds, 3, 100);
    if (in.fd >= 0 && (fds[0].revents & (POLLOUT | POLLERR | POLLHUP))) {
      const ssize_t n = ::write(in.fd, input.data() + written, input.size() - written);
      if (n > 0) written += static_cast<size_t>(n);
      if ((n < 0 && errno != EAGAIN) || written == input.size()) in.Close();  // EPIPE: not read
    }
    for (int i = 1; i < 3; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      Descriptor& source = i == 1 ? out : err;
      const ssize_t n = ::read(source.fd, buffer, sizeof buffer);
      if (n <= 0) {
        source.Close();
        continue;
      }
      std::string& sink = i == 1 ? result.output : result.errors;
      sink.append(buffer, static_cast<size_t>(n));
      if (i == 2 && sink.size() > 2 * kMaxErrorTail) sink.erase(0, sink.size() - kMaxErrorTail);
      if (i == 1 && sink.size() > kMaxOutputBytes) {
        return Error::Internal("its answer on standard output is larger than 6 MB");
      }
    }
  }
  in.Close();
  result.exit_status = child.Wait();
  if (result.errors.size() > kMaxErrorTail) {
    result.errors.erase(0, result.errors.size() - kMaxErrorTail);
  }
  return result;
}

Invocation Invoke(const Target& target, HttpClient* http, std::string_view payload,
                  const std::atomic<bool>& cancelled) {
  Invocation invocation;
  if (!target.command.empty()) {
    auto ran = RunCommand(std::string(target.command), payload, target.timeout, cancelled);
    if (!ran.ok()) {
      invocation.function_error = true;
      invocation.error = "command: " + ran.error().message();
      return invocation;
    }
    if (ran->exit_status != 0) {
      invocation.function_error = true;
      std::string_view tail = ran->errors;
      while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r')) tail.remove_suffix(1);
      invocation.error = "command exited with status " + std::to_string(ran->exit_status) +
                         (tail.empty() ? "" : ": " + Shorten(tail.substr(tail.rfind('\n') + 1)));
      return invocation;
    }
    invocation.response = std::move(ran->output);
  } else {
    if (!http) {
      invocation.function_error = true;
      invocation.error = "no HTTP client";
      return invocation;
    }
    auto reply = http->Post(target.url, payload, target.timeout, cancelled);
    if (!reply.ok()) {
      invocation.function_error = true;
      invocation.error = std::string(target.url) + ": " + reply.error().message();
      return invocation;
    }
    if (reply->status < 200 || reply->status > 299 || reply->function_error) {
      invocation.function_error = true;
      invocation.error = "HTTP " + std::to_string(reply->status) +
                         (reply->body.empty() ? "" : ": " + Shorten(reply->body));
      return invocation;
    }
    invocation.response = std::move(reply->body);
  }
  if (auto error = ErrorObject(invocation.response)) {
    invocation.function_error = true;
    invocation.error = Shorten(*error);
  }
  return invocation;
}

}  // namespace ddbd::triggers
