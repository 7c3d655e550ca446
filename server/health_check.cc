// The --health-check client: one blocking GET /ddbd/health over a plain socket.
#include "server/health_check.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "model/log.h"

namespace ddbd::server {

int HealthCheck(std::string address, uint16_t port) {
  if (address == "0.0.0.0" || address.empty()) address = "127.0.0.1";
  sockaddr_in target{};
  target.sin_family = AF_INET;
  target.sin_port = htons(port);
  if (inet_pton(AF_INET, address.c_str(), &target.sin_addr) != 1) {
    log::Error("health check: not an IPv4 address: %s", address.c_str());
    return 1;
  }
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 1;
  timeval timeout{2, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  const std::string request =
      "GET /ddbd/health HTTP/1.1\r\nHost: " + address + "\r\nConnection: close\r\n\r\n";
  char reply[4096] = {};
  const bool answered =
      connect(fd, reinterpret_cast<const sockaddr*>(&target), sizeof target) == 0 &&
      send(fd, request.data(), request.size(), 0) == static_cast<ssize_t>(request.size()) &&
      recv(fd, reply, sizeof reply - 1, MSG_WAITALL) > 12;
  close(fd);
  if (answered && std::strncmp(reply, "HTTP/1.1 200", 12) == 0) return 0;
  // The body says why: {"status":"unhealthy","reason":"storage: IO error: ..."}.
  const char* body = answered ? std::strstr(reply, "\r\n\r\n") : nullptr;
  log::Error("health check of %s:%u failed%s%s", address.c_str(), port, answered ? ": " : "",
             body       ? body + 4
             : answered ? reply
                        : "");
  return 1;
}

}  // namespace ddbd::server
