// `ddbd --health-check`: asks a running ddbd on this machine for ListTables and reports
// whether it answered 200 — a container HEALTHCHECK that needs no curl in the image.
#pragma once

#include <cstdint>
#include <string>

namespace ddbd::server {

// 0 when the server at `address`:`port` answers ListTables with 200 within two seconds,
// 1 otherwise (with the reason on stderr). A wildcard address means this machine.
int HealthCheck(std::string address, uint16_t port);

}  // namespace ddbd::server
