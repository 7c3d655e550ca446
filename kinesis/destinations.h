// The state machine of a table's Kinesis streaming destinations, as pure functions of its
// TableDef: what DynamoDB reports for each destination (ENABLING → ACTIVE, UPDATING →
// ACTIVE, DISABLING → DISABLED, each transitional phase lasting the transient-status
// delay), and the Enable, Disable and Update requests applied to it with DynamoDB's
// refusals, word for word where known (pinned by tests/kinesis/destinations_test.cc and
// tests/integration/js/kinesis_destinations.test.mjs).
//
// A table has at most one live destination (any but DISABLED); DISABLED entries are kept and
// enabling their stream again reuses them (and their records id).
//
// Entry points: StatusOf, EnableDestination, DisableDestination, UpdateDestination,
// StreamNameOf.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "model/result.h"
#include "model/table_def.h"

namespace ddbd::kinesis {

enum class DestinationStatus { kEnabling, kActive, kUpdating, kDisabling, kDisabled };
std::string_view DestinationStatusName(DestinationStatus status);
std::string_view PrecisionName(KinesisPrecision precision);

// The status DynamoDB reports for `destination` at `now_ms`, when transitional phases last
// `delay_ms` (0: none — the operations' own responses still name the phase).
DestinationStatus StatusOf(const KinesisDestination& destination, int64_t now_ms, int64_t delay_ms);

// The time and delay a request is judged at.
struct Moment {
  int64_t now_ms = 0;
  int64_t delay_ms = 0;
};

// EnableKinesisStreamingDestination: ValidationException while the table has a live
// destination; otherwise the entry of `stream_arn` is enabled again, or a new one added
// with `fresh_records_id`. Precision: as given (absent when not).
Status EnableDestination(TableDef& table, std::string_view stream_arn,
                         std::optional<KinesisPrecision> precision, Moment at,
                         uint64_t fresh_records_id);
// DisableKinesisStreamingDestination: ValidationException unless the entry of `stream_arn`
// is ACTIVE (or already DISABLING: nothing changes).
Status DisableDestination(TableDef& table, std::string_view stream_arn, Moment at);
// UpdateKinesisStreamingDestination: ValidationException without an ACTIVE entry for
// `stream_arn`, or when `precision` is the one in effect.
Status UpdateDestination(TableDef& table, std::string_view stream_arn, KinesisPrecision precision,
                         Moment at);

// The stream name of a Kinesis stream ARN ("arn:aws:kinesis:region:account:stream/NAME");
// empty when the ARN names no stream.
std::string StreamNameOf(std::string_view stream_arn);

}  // namespace ddbd::kinesis
