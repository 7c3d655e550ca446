// OpContext and Request: everything an operation handler gets. A handler has the signature
// `Result<std::string> Op(OpContext&, const Request&)` and returns the response body.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "model/result.h"
#include "model/table_def.h"
#include "server/consumption.h"
#include "server/service.h"
#include "wire/json_reader.h"

namespace ddbd::server {

struct Request {
  wire::JsonObject body;
};

// "arn:aws:dynamodb:<region>:<account>:table/<name>[/…]" → "<name>"; a plain name as it is.
std::string_view TableNameOf(std::string_view name_or_arn);

class OpContext {
 public:
  OpContext(Service& service, std::string scope, std::string region, std::string host = {})
      : service_(service),
        scope_(std::move(scope)),
        region_(std::move(region)),
        host_(std::move(host)) {}

  storage::Database& db() { return service_.db(); }
  storage::Catalog& catalog() { return service_.catalog(); }
  const ServiceOptions& options() const { return service_.options(); }
  Service& service() { return service_; }
  // The isolation namespace of this request's tables.
  const std::string& scope() const { return scope_; }
  // The region this request was signed for (ARNs, endpoints).
  const std::string& region() const { return region_; }
  // The Host header the client sent (what DescribeEndpoints hands back).
  const std::string& host() const { return host_; }
  // The service clock's time (model/clock.h), in milliseconds since the epoch.
  int64_t NowMs() const { return service_.clock().NowMs(); }
  // The principal whose signature --credentials verified ("arn:aws:iam::<account>:user/<access
  // key>"); empty when signatures are not verified (resource policies are then not evaluated).
  const std::string& caller() const { return caller_; }
  void set_caller(std::string principal) { caller_ = std::move(principal); }
  // What this request has consumed so far (recorded by the operations, read by the exchange).
  Consumption& consumption() { return consumption_; }

  // A table for a data-plane operation, by name or ARN: ResourceNotFoundException
  // "Requested resource not found" when it does not exist.
  Result<std::shared_ptr<const TableDef>> FindTable(std::string_view name_or_arn);
  // The same for control-plane operations, whose message names the table.
  Result<std::shared_ptr<const TableDef>> FindTableForControl(std::string_view name_or_arn);
  // ResourceNotFoundException for a table that is not there: `message`, or DynamoDB's
  // "Requested resource not found" when empty — or DynamoDB Local's one text under its
  // compatibility profile.
  Error MissingTable(std::string message) const;
  // The same for the backup APIs, which answer TableNotFoundException ("Table not found: X").
  Result<std::shared_ptr<const TableDef>> FindTableForBackup(std::string_view name_or_arn);

 private:
  Service& service_;
  std::string scope_;
  std::string region_;
  std::string host_;
  std::string caller_;
  Consumption consumption_;
};

}  // namespace ddbd::server
