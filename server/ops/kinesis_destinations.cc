// EnableKinesisStreamingDestination, DisableKinesisStreamingDestination,
// DescribeKinesisStreamingDestination and UpdateKinesisStreamingDestination: a table's
// Kinesis Data Streams destinations, kept in its record. The state machine and DynamoDB's
// refusals are kinesis/destinations.h's; the delivery of the changes is kinesis/publisher.h's
// (only with --kinesis-endpoint: without it the statuses change and nothing is delivered).
//
// As on DynamoDB, the stream itself is not checked (Enable answers ENABLING for any ARN), each
// operation's own response names the transitional status (ENABLING, DISABLING, UPDATING)
// even when the transient-status delay is 0, and destinations are not part of DescribeTable.
// Pinned by: tests/integration/js/kinesis_destinations.test.mjs.
#include "kinesis/destinations.h"
#include "server/ops/common.h"
#include "server/ops/ops.h"

namespace ddbd::server::ops {
namespace {

constexpr size_t kMinStreamArnLength = 37;
constexpr size_t kMaxStreamArnLength = 1024;

// The members the three changing operations share.
struct DestinationInput {
  std::string_view table_name;
  std::string_view stream_arn;
  bool has_configuration = false;  // the operation's configuration member was sent
  std::optional<KinesisPrecision> precision;
};

// `configuration`: the request's configuration member ("EnableKinesisStreamingConfiguration"
// or "UpdateKinesisStreamingConfiguration").
Result<DestinationInput> ParseDestinationInput(wire::JsonObject body,
                                               std::string_view configuration) {
  DestinationInput in;
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(in.table_name, ReadTableName(body, errors));
  DDBD_ASSIGN_OR_RETURN(in.stream_arn, ReadArn(body, "StreamArn", "streamArn", kMinStreamArnLength,
                                               kMaxStreamArnLength, errors));
  DDBD_ASSIGN_OR_RETURN(auto config, wire::GetObject(body, configuration));
  if (config) {
    in.has_configuration = true;
    const std::string path =
        wire::EnvelopeName(configuration) + ".approximateCreationDateTimePrecision";
    DDBD_ASSIGN_OR_RETURN(auto precision, ReadEnum(*config, "ApproximateCreationDateTimePrecision",
                                                   path, {"MILLISECOND", "MICROSECOND"}, errors));
    if (precision) {
      in.precision = *precision == "MICROSECOND" ? KinesisPrecision::kMicrosecond
                                                 : KinesisPrecision::kMillisecond;
    }
  }
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  return in;
}

kinesis::Moment Now(const OpContext& ctx) {
  return {ctx.NowMs(), ctx.options().transient_status_delay.count()};
}

// {TableName, StreamArn, DestinationStatus, <configuration>: {…}}: the changing operations'
// response; the configuration member is left out when `configuration` is empty.
std::string RenderChange(const TableDef& table, std::string_view stream_arn,
                         std::string_view status, std::string_view configuration,
                         std::optional<KinesisPrecision> precision) {
  wire::JsonWriter out;
  out.BeginObject().Key("TableName").String(table.name);
  out.Key("StreamArn").String(stream_arn).Key("DestinationStatus").String(status);
  if (!configuration.empty()) {
    out.Key(configuration).BeginObject();
    if (precision) {
      out.Key("ApproximateCreationDateTimePrecision").String(kinesis::PrecisionName(*precision));
    }
    out.EndObject();
  }
  out.EndObject();
  return out.Take();
}

}  // namespace

Result<std::string> EnableKinesisStreamingDestination(OpContext& ctx, const Request& req) {
  constexpr std::string_view kConfiguration = "EnableKinesisStreamingConfiguration";
  DDBD_ASSIGN_OR_RETURN(DestinationInput in, ParseDestinationInput(req.body, kConfiguration));
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTableForControl(in.table_name));
  DDBD_ASSIGN_OR_RETURN(uint64_t records_id, ctx.catalog().AllocateId());
  auto changed = ctx.catalog().Modify(table->id, [&](TableDef& current) {
    return kinesis::EnableDestination(current, in.stream_arn, in.precision, Now(ctx), records_id);
  });
  if (!changed.ok()) return std::move(changed).error();
  return RenderChange(**changed, in.stream_arn, "ENABLING", kConfiguration, in.precision);
}

Result<std::string> DisableKinesisStreamingDestination(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(DestinationInput in,
                        ParseDestinationInput(req.body, "EnableKinesisStreamingConfiguration"));
  if (in.has_configuration) {
    return Error::Validation(
        "Stream cannot be disabled using EnableKinesisStreamingConfiguration parameters");
  }
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTableForControl(in.table_name));
  auto changed = ctx.catalog().Modify(table->id, [&](TableDef& current) {
    return kinesis::DisableDestination(current, in.stream_arn, Now(ctx));
  });
  if (!changed.ok()) return std::move(changed).error();
  return RenderChange(**changed, in.stream_arn, "DISABLING", "", std::nullopt);
}

Result<std::string> UpdateKinesisStreamingDestination(OpContext& ctx, const Request& req) {
  constexpr std::string_view kConfiguration = "UpdateKinesisStreamingConfiguration";
  DDBD_ASSIGN_OR_RETURN(DestinationInput in, ParseDestinationInput(req.body, kConfiguration));
  if (!in.precision) {
    return Error::Validation(
        "Streaming destination cannot be updated with given parameters: "
        "UpdateKinesisStreamingConfiguration cannot be null or contain only null values");
  }
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTableForControl(in.table_name));
  auto changed = ctx.catalog().Modify(table->id, [&](TableDef& current) {
    return kinesis::UpdateDestination(current, in.stream_arn, *in.precision, Now(ctx));
  });
  if (!changed.ok()) return std::move(changed).error();
  return RenderChange(**changed, in.stream_arn, "UPDATING", kConfiguration, in.precision);
}

Result<std::string> DescribeKinesisStreamingDestination(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(std::string_view name, ReadOnlyTableName(req.body));
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTableForControl(name));
  const kinesis::Moment now = Now(ctx);
  wire::JsonWriter out;
  out.BeginObject().Key("TableName").String(table->name);
  out.Key("KinesisDataStreamDestinations").BeginArray();
  // The most recently enabled first, as DynamoDB lists them.
  const auto& destinations = table->kinesis_destinations;
  for (auto it = destinations.rbegin(); it != destinations.rend(); ++it) {
    out.BeginObject().Key("StreamArn").String(it->stream_arn);
    out.Key("DestinationStatus")
        .String(kinesis::DestinationStatusName(kinesis::StatusOf(*it, now.now_ms, now.delay_ms)));
    if (it->precision) {
      out.Key("ApproximateCreationDateTimePrecision")
          .String(kinesis::PrecisionName(*it->precision));
    }
    out.EndObject();
  }
  out.EndArray().EndObject();
  return out.Take();
}

}  // namespace ddbd::server::ops
