// HttpServer: Boost.Beast HTTP/1.1 server with keep-alive, over TCP or TLS, run by a pool of
// I/O threads.
// Each request is handled on the I/O thread that read it (handlers take microseconds).
// Entry points: Start (binds and listens), Run (blocks until Stop), Stop (thread-safe,
// async-signal-unsafe: call it from a signal-handling thread, not a signal handler).
#pragma once

#include <chrono>
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
  // How long a client has to send a request's header: from connecting for the first request,
  // from the header's first byte for later ones. A slow or stalled header is cut off.
  std::chrono::milliseconds header_timeout{10'000};
  // How long a client has to send a request's body once its header is in, and to take the
  // reply: a body shorter than its Content-Length is cut off when this runs out.
  std::chrono::milliseconds body_timeout{60'000};
  // How long a kept-alive connection may wait for its next request.
  std::chrono::milliseconds idle_timeout{60'000};
  // Connections served at once; one more is answered 503 ServiceUnavailable and closed, so
  // that file descriptors stay free for storage. REQUIRES: at least 1.
  int max_connections = 1024;
  // PEM files of the certificate (chain) and private key: both set, HTTPS is served instead
  // of HTTP on the port; both empty, plain HTTP.
  std::string tls_certificate;
  std::string tls_private_key;
  bool tls() const { return !tls_certificate.empty(); }
};

class HttpServer {
 public:
  HttpServer(Service& service, ServerOptions options);
  ~HttpServer();
  // Loads the TLS certificate and key (if any) and binds the listening socket. Fails if they
  // cannot be loaded or the port is taken.
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
