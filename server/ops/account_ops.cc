// DescribeLimits and DescribeEndpoints: account-level answers with DynamoDB's defaults.
#include "server/ops/ops.h"
#include "wire/json_writer.h"

namespace ddbd::server::ops {

Result<std::string> DescribeLimits(OpContext&, const Request&) {
  wire::JsonWriter out;
  out.BeginObject()
      .Key("AccountMaxReadCapacityUnits")
      .Int(80000)
      .Key("AccountMaxWriteCapacityUnits")
      .Int(80000)
      .Key("TableMaxReadCapacityUnits")
      .Int(40000)
      .Key("TableMaxWriteCapacityUnits")
      .Int(40000)
      .EndObject();
  return out.Take();
}

// SDKs with endpoint discovery switch to the address returned here, so it must lead back to
// this server: the Host the client used, else DynamoDB's regional name.
Result<std::string> DescribeEndpoints(OpContext& ctx, const Request&) {
  std::string address =
      ctx.host().empty() ? "dynamodb." + ctx.region() + ".amazonaws.com" : ctx.host();
  wire::JsonWriter out;
  out.BeginObject().Key("Endpoints").BeginArray();
  out.BeginObject()
      .Key("Address")
      .String(address)
      .Key("CachePeriodInMinutes")
      .Int(1440)
      .EndObject();
  out.EndArray().EndObject();
  return out.Take();
}

}  // namespace ddbd::server::ops
