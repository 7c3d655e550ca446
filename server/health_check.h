// `ddbd --health-check`: asks a running ddbd on this machine for GET /ddbd/health and reports
// whether it answered 200 — a container HEALTHCHECK that needs no curl in the image. Storage
// that refuses writes (a RocksDB background error) makes the check fail, with the reason.
#pragma once

#include <cstdint>
#include <string>

namespace ddbd::server {

// 0 when the server at `address`:`port` answers healthy (200) within two seconds,
// 1 otherwise (with the reason on stderr). A wildcard address means this machine.
int HealthCheck(std::string address, uint16_t port);

}  // namespace ddbd::server
