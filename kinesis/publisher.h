// Publisher: delivers the changes captured for Kinesis streaming destinations (CapturePart)
// to a Kinesis endpoint with PutRecords, on the background executor.
//
// Delivery promise (docs/RELIABILITY.md): each destination's records are sent in capture
// order, in batches of at most 500 records and 5 MB, a batch holding at most one record per
// item, so one item's changes reach its shard in order even though PutRecords does not order
// the records of one request. A batch's failed records (FailedRecordCount, a failed or
// unanswered call) are sent again, in order, with back-off, before anything after the batch
// is sent. Once a whole batch is stored, its records are removed from storage, and the trim
// point that removal marks is the durable checkpoint: a restart resumes after it, so nothing
// is lost or reordered. A crash between a batch's delivery and its removal sends that batch
// again (at least once, as DynamoDB promises); a clean shutdown waits for the batch in flight.
// Records still undelivered after 24 hours are dropped (retention), as DynamoDB Streams'.
//
// Entry points: Publisher::Start, DeliverOnce, TrimOnce.
// Thread-safety: passes run one at a time on the executor (RunEvery); DeliverOnce and
// TrimOnce are for that pass and for tests, not for concurrent callers.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <vector>

#include "kinesis/put_records.h"
#include "model/clock.h"
#include "model/executor.h"
#include "model/result.h"
#include "storage/catalog.h"
#include "storage/database.h"

namespace ddbd::kinesis {

inline constexpr int64_t kRetentionMs = int64_t{24} * 3600 * 1000;

class Publisher {
 public:
  // `transport` null: nothing is delivered (no --kinesis-endpoint); retention still runs.
  // REQUIRES: all of these outlive this object; `executor` is stopped before they go.
  Publisher(storage::Database& db, const storage::Catalog& catalog, const Clock& clock,
            Executor& executor, KinesisTransport* transport)
      : db_(db), catalog_(catalog), clock_(clock), executor_(executor), transport_(transport) {}

  // Schedules delivery passes every `delivery_interval` (with a transport) and retention
  // passes every `retention_interval`.
  void Start(std::chrono::milliseconds delivery_interval,
             std::chrono::milliseconds retention_interval);
  // Sends what every destination has waiting, as far as the endpoint takes it (a destination
  // in back-off waits for its time). Returns how many records were stored by Kinesis.
  Result<uint64_t> DeliverOnce();
  // Removes the records captured before `now_ms` − 24 hours. Returns how many went.
  Result<uint64_t> TrimOnce(int64_t now_ms);

 private:
  // A batch sent but not wholly stored yet: the records still to send, and the last
  // sequence number the batch covers (trimmed once the batch is done).
  struct Pending {
    std::vector<OutgoingRecord> records;
    uint64_t through = 0;
    int failures = 0;
    std::chrono::steady_clock::time_point retry_at;
  };

  // Delivers one destination's records: batch after batch, until none is left, a batch
  // fails, or the executor stops.
  Result<uint64_t> DeliverDestination(const TableDef& table, const KinesisDestination& destination);
  // The next batch of a destination, from storage; nullopt when it has nothing waiting.
  Result<std::optional<Pending>> NextBatch(const TableDef& table,
                                           const KinesisDestination& destination);
  // Sends `pending`; what Kinesis did not store stays in it. Returns how many were stored.
  Result<uint64_t> Send(std::string_view stream_name, Pending& pending);

  storage::Database& db_;
  const storage::Catalog& catalog_;
  const Clock& clock_;
  Executor& executor_;
  KinesisTransport* const transport_;
  std::map<uint64_t, Pending> pending_;  // by records id
};

}  // namespace ddbd::kinesis
