// Kinesis streaming destinations: statuses and requests.
#include "kinesis/destinations.h"

#include <algorithm>

#include "model/error.h"

namespace ddbd::kinesis {
namespace {

constexpr std::string_view kInvalidState =
    "Table is not in a valid state to enable Kinesis Streaming Destination: ";

KinesisDestination* Find(TableDef& table, std::string_view stream_arn) {
  for (auto& destination : table.kinesis_destinations) {
    if (destination.stream_arn == stream_arn) return &destination;
  }
  return nullptr;
}

}  // namespace

std::string_view DestinationStatusName(DestinationStatus status) {
  switch (status) {
    case DestinationStatus::kEnabling:
      return "ENABLING";
    case DestinationStatus::kActive:
      return "ACTIVE";
    case DestinationStatus::kUpdating:
      return "UPDATING";
    case DestinationStatus::kDisabling:
      return "DISABLING";
    case DestinationStatus::kDisabled:
      return "DISABLED";
  }
  return "ACTIVE";
}

std::string_view PrecisionName(KinesisPrecision precision) {
  return precision == KinesisPrecision::kMicrosecond ? "MICROSECOND" : "MILLISECOND";
}

DestinationStatus StatusOf(const KinesisDestination& destination, int64_t now_ms,
                           int64_t delay_ms) {
  const bool settling = now_ms < destination.changed_ms + delay_ms;
  if (!destination.enabled) {
    return settling ? DestinationStatus::kDisabling : DestinationStatus::kDisabled;
  }
  if (!settling) return DestinationStatus::kActive;
  return destination.last_change == KinesisChange::kUpdate ? DestinationStatus::kUpdating
                                                           : DestinationStatus::kEnabling;
}

Status EnableDestination(TableDef& table, std::string_view stream_arn,
                         std::optional<KinesisPrecision> precision, Moment at,
                         uint64_t fresh_records_id) {
  // Pinned by: kinesis_destinations.test.mjs "one live destination per table".
  for (const auto& destination : table.kinesis_destinations) {
    if (StatusOf(destination, at.now_ms, at.delay_ms) != DestinationStatus::kDisabled) {
      return Error::Validation(std::string(kInvalidState) +
                               "EnableKinesisStreamingDestination must be DISABLED or "
                               "ENABLE_FAILED to perform ENABLE operation.");
    }
  }
  KinesisDestination entry;
  if (KinesisDestination* existing = Find(table, stream_arn)) {
    entry = *existing;
    std::erase_if(table.kinesis_destinations,
                  [&](const KinesisDestination& d) { return d.stream_arn == stream_arn; });
  } else {
    entry.stream_arn = std::string(stream_arn);
    entry.records_id = fresh_records_id;
  }
  entry.enabled = true;
  entry.last_change = KinesisChange::kEnable;
  entry.changed_ms = at.now_ms;
  entry.precision = precision;
  table.kinesis_destinations.push_back(std::move(entry));  // the most recently enabled last
  return OkStatus();
}

Status DisableDestination(TableDef& table, std::string_view stream_arn, Moment at) {
  KinesisDestination* destination = Find(table, stream_arn);
  const DestinationStatus status =
      destination ? StatusOf(*destination, at.now_ms, at.delay_ms) : DestinationStatus::kDisabled;
  if (status == DestinationStatus::kDisabling) return OkStatus();  // as DynamoDB: 200 again
  if (status != DestinationStatus::kActive) {
    return Error::Validation(std::string(kInvalidState) +
                             "KinesisStreamingDestination must be ACTIVE to perform DISABLE "
                             "operation.");
  }
  destination->enabled = false;
  destination->last_change = KinesisChange::kDisable;
  destination->changed_ms = at.now_ms;
  return OkStatus();
}

Status UpdateDestination(TableDef& table, std::string_view stream_arn, KinesisPrecision precision,
                         Moment at) {
  KinesisDestination* destination = Find(table, stream_arn);
  if (!destination) {
    return Error::Validation(std::string(kInvalidState) +
                             "No streaming destination with streamArn: " + std::string(stream_arn) +
                             " found for table with tableName: " + table.name);
  }
  if (StatusOf(*destination, at.now_ms, at.delay_ms) != DestinationStatus::kActive) {
    return Error::Validation(std::string(kInvalidState) +
                             "Kinesis streaming is not in ACTIVE state. Updates are only allowed "
                             "in ACTIVE state. TableName: " +
                             table.name);
  }
  if (destination->precision.value_or(KinesisPrecision::kMillisecond) == precision) {
    return Error::Validation("Invalid Request: Precision is already set to the desired value of " +
                             std::string(PrecisionName(precision)) + " for tableId: " +
                             table.table_uuid + ", kdsArn: " + std::string(stream_arn));
  }
  destination->precision = precision;
  destination->last_change = KinesisChange::kUpdate;
  destination->changed_ms = at.now_ms;
  return OkStatus();
}

std::string StreamNameOf(std::string_view stream_arn) {
  constexpr std::string_view kMarker = ":stream/";
  const size_t at = stream_arn.find(kMarker);
  if (!stream_arn.starts_with("arn:") || at == std::string_view::npos) return {};
  std::string_view name = stream_arn.substr(at + kMarker.size());
  return std::string(name.substr(0, name.find('/')));  // a consumer ARN: ".../consumer/..."
}

}  // namespace ddbd::kinesis
