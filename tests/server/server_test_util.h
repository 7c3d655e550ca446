// In-process harness for handler tests: a fresh in-memory ddbd driven through the same
// HandleExchange the HTTP server uses, without sockets.
#pragma once

#include <gtest/gtest.h>
#include <simdjson.h>

#include <memory>
#include <string>

#include "server/http/exchange.h"
#include "server/service.h"
#include "storage/catalog.h"
#include "storage/database.h"

namespace ddbd::server::testing {

struct Reply {
  int status = 0;
  std::string body;
  http::HttpReply raw;
  // The error name after '#' of `__type`, or "" for a success.
  std::string ErrorName() const;
  // The message (either spelling of the member).
  std::string Message() const;
};

class ServerHarness {
 public:
  explicit ServerHarness(ServiceOptions options = {});
  Reply Call(std::string_view operation, std::string body);
  Reply Call(std::string_view operation, std::string body, std::string authorization);
  http::HttpReply Raw(http::HttpRequest request);
  static std::string DefaultAuthorization(std::string_view access_key = "AKID",
                                          std::string_view region = "us-east-1");
  // The parts behind the handlers, to set up what only a crash could leave.
  storage::Database& db() { return *db_; }
  storage::Catalog& catalog() { return *catalog_; }
  Service& service() { return *service_; }

 private:
  std::unique_ptr<storage::Database> db_;
  std::unique_ptr<storage::Catalog> catalog_;
  std::unique_ptr<Service> service_;
};

}  // namespace ddbd::server::testing
