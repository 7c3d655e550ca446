// HttpServer: Boost.Beast HTTP/1.1 server with keep-alive, run by a pool of I/O threads.
// Each request is handled on the I/O thread that read it (handlers take microseconds).
// Entry points: Start (binds and listens), Run (blocks until Stop), Stop (thread-safe,
// async-signal-unsafe: call it from a signal-handling thread, not a signal handler).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "model/result.h"
#include "server/service.h"

namespace ddbd::server::http {

struct ServerOptions {
  std::string address = "0.0.0.0";
  uint16_t port = 8000;
  int threads = 2;
};

class HttpServer {
 public:
  HttpServer(Service& service, ServerOptions options);
  ~HttpServer();
  // Binds the listening socket. Fails if the port is taken.
  Status Start();
  // The port actually bound (useful with port 0).
  uint16_t port() const;
  // Serves on `threads` threads (the caller's included) until Stop; returns after all
  // threads have left the event loop.
  void Run();
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ddbd::server::http
