// Runner: delivers one trigger's stream records to its target, on a thread of its own (so a
// slow or hanging handler holds back only its trigger), the way Lambda's event source
// mapping delivers DynamoDB Streams.
//
// Delivery promise (docs/RELIABILITY.md):
// - Records follow the table's streams in order: a stream disabled or replaced is read to
//   its end before the next one. Where a trigger starts on a stream: TRIM_HORIZON at its
//   oldest record, LATEST after the last record written when the trigger was created (so a
//   table created later is read from its start), AT_TIMESTAMP at the first record from then.
// - Records are read in windows of BatchSize × ParallelizationFactor. With a factor above 1,
//   a window's records are split by partition key into that many lanes delivered at once, so
//   one item's records keep their order (a window also ends once it holds 3 MB of items per
//   lane, so large items cannot take memory without bound). A lane's records go in batches of
//   at most BatchSize records and 6 MB. With MaximumBatchingWindowInSeconds, a window that is
//   not full is held until its oldest record is that old by the service clock.
// - Records not matching FilterCriteria are dropped; AT_TIMESTAMP's earlier records skipped.
// - A failed batch (function error, or batchItemFailures with ReportBatchItemFailures) is
//   retried with back-off: from its first failed record for a partial batch response, in
//   halves with BisectBatchOnFunctionError (halving is not a retry), until it succeeds, its
//   retries pass MaximumRetryAttempts, or its records pass MaximumRecordAgeInSeconds (or
//   the stream's 24-hour retention removes them). A batch given up goes to the on-failure
//   destination as Lambda describes it, and delivery moves past it.
// - The checkpoint — the stream, where its last finished window ended, and each lane's last
//   acknowledged record beyond it — is stored after every acknowledged batch, so a restart
//   (even after SIGKILL) delivers again only a batch that was not acknowledged, and nothing
//   out of order.
//
// Entry points: Runner::Start, Stop, Statistics.
// Thread-safety: every method may be called from any thread; Stop is idempotent.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "model/clock.h"
#include "model/result.h"
#include "storage/catalog.h"
#include "storage/database.h"
#include "triggers/definition.h"
#include "triggers/event.h"
#include "triggers/invoker.h"

namespace ddbd::triggers {

struct TriggerStatistics {
  uint64_t batches_delivered = 0;
  uint64_t batches_failed = 0;   // invocations that failed (or reported failed records)
  uint64_t batches_retried = 0;  // retries after a failure
  uint64_t records_delivered = 0;
  uint64_t records_filtered = 0;   // dropped by FilterCriteria
  uint64_t records_discarded = 0;  // given up (to the on-failure destination)
  int64_t iterator_age_ms = 0;     // how old the oldest record not yet delivered is
  std::string last_error;
  int64_t last_error_ms = 0;  // by the service clock
  // Lambda's LastProcessingResult: "OK", "No records processed", or "PROBLEM: …".
  std::string last_processing_result = "No records processed";
  std::string stream_arn;  // the stream being read, and the last record finished on it
  uint64_t position = 0;
};

class Runner {
 public:
  struct Context {
    storage::Database& db;
    const storage::Catalog& catalog;
    const Clock& clock;
    HttpClient* http;  // null: URL targets fail
  };
  // REQUIRES: what `context` refers to outlives this object.
  Runner(Context context, TriggerDefinition definition)
      : context_(context), definition_(std::move(definition)) {}
  ~Runner() { Stop(); }
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  void Start();
  // Ends delivery: an invocation in flight is cut short (and its batch delivered again at the
  // next start). Waits for the thread.
  void Stop();
  TriggerStatistics Statistics() const;
  const TriggerDefinition& definition() const { return definition_; }

  // The lane of a record among `lanes`: a hash of its key attributes (FNV-1a of their JSON),
  // so that one item's records always share a lane, across restarts too.
  static size_t LaneOf(const Item& keys, int64_t lanes);

  // The checkpoint's job kind (storage/FORMAT.md).
  static constexpr char kCheckpointKind = 'C';

 private:
  enum class Progress { kIdle, kWaiting, kDelivered };
  struct Entry {  // one record to deliver
    uint64_t sequence = 0;
    int64_t time_ms = 0;
    std::string json;
  };
  struct Window {  // the records after the checkpoint, as many as one pass delivers
    std::vector<storage::StreamRecord> records;
    bool full = false;  // BatchSize × ParallelizationFactor records, or their bytes' bound
  };
  struct Checkpoint {
    uint64_t stream_id = 0;
    uint64_t after = 0;
    std::vector<uint64_t> lanes;  // each lane's last acknowledged record past `after`
    uint64_t Reached(size_t lane) const { return std::max(after, lanes[lane]); }
  };
  struct Attempt {  // a batch's records [begin, end) to invoke the handler with
    size_t begin = 0;
    size_t end = 0;
    int64_t retries = 0;
    int invocations = 0;
  };
  struct Source {  // the stream being delivered
    const TableDef* table = nullptr;
    const StreamSpec* stream = nullptr;
  };

  void Loop();
  Result<Progress> Pass();
  Result<Progress> PassOn(const Source& source);
  Status Begin(const StreamSpec& stream);
  // Reads the window after `after`: up to BatchSize × ParallelizationFactor records, fewer
  // once their items come to ParallelizationFactor × 3 MB.
  Result<Window> ReadWindow(uint64_t stream_id, uint64_t after);
  // The window's records to deliver, rendered, by lane: without those acknowledged before a
  // restart, before AT_TIMESTAMP's time, or not matching the filters (counted).
  std::vector<std::vector<Entry>> LanesOf(const Source& source,
                                          const std::vector<storage::StreamRecord>& records,
                                          const Checkpoint& start);
  // Delivers the lanes at once (a thread per busy lane past the first); false when stopped.
  bool DeliverLanes(const Source& source, std::vector<std::vector<Entry>>& lanes);
  // Delivers one lane's entries batch by batch; false when stopped midway.
  bool DeliverLane(const Source& source, size_t lane, std::vector<Entry>& entries);
  bool DeliverBatch(const Source& source, size_t lane, const std::vector<Entry>& batch);
  // Gives up the records of `attempt` past MaximumRecordAgeInSeconds (RecordAgeExceeded);
  // true when none is left.
  bool GiveUpExpired(const Source& source, size_t lane, const std::vector<Entry>& batch,
                     Attempt& attempt, bool last_failed);
  // Where a partial batch response's failures start in batch[begin, end): `end` for none,
  // `begin` for an answer that names no record of the batch.
  size_t FirstFailure(std::string_view response, const std::vector<Entry>& batch, size_t begin,
                      size_t end) const;
  void GiveUp(const Source& source, const std::vector<Entry>& batch, size_t begin, size_t end,
              std::string_view condition, int invocations, bool function_error);
  void Acknowledge(size_t lane, uint64_t sequence);
  Status LoadCheckpoint();
  Status SaveCheckpoint();  // REQUIRES: checkpoint_mutex_ held
  void NoteError(const std::string& error);
  void SetResult(std::string result);
  bool Pause(std::chrono::milliseconds pause);  // false once stopping

  Context context_;
  const TriggerDefinition definition_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  std::mutex wake_mutex_;
  std::condition_variable wake_;
  std::mutex checkpoint_mutex_;
  Checkpoint checkpoint_;
  mutable std::mutex statistics_mutex_;
  TriggerStatistics statistics_;
};

}  // namespace ddbd::triggers
