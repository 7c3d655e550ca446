// The Kinesis records DynamoDB writes for item changes: each record's Data (UTF-8 JSON in
// the key order DynamoDB uses — awsRegion, eventID, eventName, userIdentity, recordFormat,
// tableName, dynamodb{ApproximateCreationDateTime, Keys, NewImage, OldImage, SizeBytes},
// eventSource) and its partition key, so that one item's records go to one shard.
// Pure functions; thread-safe.
//
// Entry points: RenderRecord, PartitionKeyOf, EventIdOf.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "model/attribute_value.h"
#include "model/table_def.h"
#include "storage/stream_record.h"

namespace ddbd::kinesis {

// One record to put: the change's number in its destination's records, and what Kinesis
// gets.
struct OutgoingRecord {
  uint64_t sequence = 0;
  std::string partition_key;
  std::string data;
};

// The record for `change`, captured for the destination of `table` whose records id is
// `records_id`. ApproximateCreationDateTime is in epoch milliseconds, or microseconds with
// MICROSECOND (then also named, last in `dynamodb`); the clock has millisecond resolution, so
// a microsecond time ends in 000.
OutgoingRecord RenderRecord(const TableDef& table, uint64_t records_id,
                            const storage::StreamRecord& change, KinesisPrecision precision);

// 32 uppercase hexadecimal digits derived from the item's key attributes: equal for every
// change of one item.
std::string PartitionKeyOf(const Item& keys);

// A UUID (8-4-4-4-12 lowercase hex) derived from the record's identity, so that a record
// delivered again (after a crash) carries the same eventID.
std::string EventIdOf(std::string_view table_uuid, uint64_t records_id, uint64_t sequence);

}  // namespace ddbd::kinesis
