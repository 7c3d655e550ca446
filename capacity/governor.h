// Capacity that really throttles (--enforce-capacity): DynamoDB's throughput limits as token
// buckets, refilled by the service clock.
//
// Buckets, one per limit a request can meet (each also per direction, read or write):
// - a provisioned table, and each GSI of a provisioned table: its RCU or WCU per second,
//   holding up to 300 seconds of unused capacity (DynamoDB's burst capacity); LSIs draw
//   from their table;
// - an on-demand table or GSI: its OnDemandThroughput maximum per second when one is set,
//   else the per-table account quota (40,000 request units per second), one second deep;
// - every partition-key value of a table, and of a GSI a Query reads: 3,000 read units and
//   1,000 write units per second, one second deep (adaptive capacity aside).
// A bucket nobody has drawn from is full: a new table starts with its whole burst, as one that
// was idle for five minutes.
//
// Reads are admitted while their buckets hold capacity and charged afterwards, when their cost
// is known (a large Query may leave a bucket in debt, which later reads wait out); writes know
// their cost before they commit and are admitted only when every bucket holds it. A throttled
// request is charged nothing. The throttling answer is DynamoDB's for the limit met first (the
// table or index, then the partition): ProvisionedThroughputExceededException on provisioned
// tables, ThrottlingException on on-demand ones, with the ThrottlingReasons DynamoDB sends.
//
// Memory: a full bucket is the same as no bucket, so full buckets are forgotten; what stays
// is what was drawn from within the last seconds (partitions) or five minutes (tables).
//
// Entry points: CapacityGovernor::Admit, Take, TakeEach, Charge.
// Thread-safety: CapacityGovernor is thread-safe.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/error.h"
#include "model/result.h"
#include "model/table_def.h"

namespace ddbd::capacity {

enum class Access : uint8_t { kRead, kWrite };

// What a request draws from one table or GSI: `units` of its capacity, and, when
// `partition` is set (the hash of a partition-key value), of that partition's too.
struct Draw {
  const IndexDef* index = nullptr;  // a GSI; null: the table (which LSIs share)
  std::optional<uint64_t> partition;
  double units = 0;
};

// The limits that are not the tables' own settings (DynamoDB's defaults; lowered in tests).
struct Limits {
  double partition_read_units = 3000;
  double partition_write_units = 1000;
  double account_table_units = 40000;  // per table or GSI, per second, on demand
  double burst_seconds = 300;
};

class CapacityGovernor {
 public:
  explicit CapacityGovernor(Limits limits = {}) : limits_(limits) {}

  // OK when every bucket `draws` names holds capacity (their units are ignored), else the
  // throttling exception of the first one that is empty. Charges nothing.
  Status Admit(const TableDef& table, Access access, const std::vector<Draw>& draws,
               int64_t now_ms);
  // Charges what a request consumed, admitted or not (a failed conditional write still costs
  // its units); may leave buckets in debt.
  void Charge(const TableDef& table, Access access, const std::vector<Draw>& draws, int64_t now_ms);
  // Admits and charges in one step when every bucket holds its draw's units; otherwise charges
  // nothing and returns the throttling exception.
  Status Take(const TableDef& table, Access access, const std::vector<Draw>& draws, int64_t now_ms);
  // Take for each request of a batch in turn (request i draws `draws[i]` from `tables[i]`):
  // which were admitted (and charged), and each refusal. With `all_or_nothing` (a
  // transaction), one refusal refunds what the others took.
  struct BatchVerdict {
    std::vector<bool> admitted;
    std::vector<std::optional<Error>> refusals;  // per request
    std::optional<Error> first_refusal;
  };
  BatchVerdict TakeEach(const std::vector<const TableDef*>& tables, Access access,
                        const std::vector<std::vector<Draw>>& draws, int64_t now_ms,
                        bool all_or_nothing = false);

  // How many buckets are remembered (tests of the memory bound).
  size_t BucketCount() const;

  // The code of a TransactionCanceledException reason for a throttling exception:
  // "ProvisionedThroughputExceeded" or "ThrottlingError".
  static std::string_view CancellationCode(const Error& throttled);

 private:
  struct BucketKey {
    uint64_t resource_id;  // a table's or index's storage id
    uint64_t partition;    // the partition hash; 0 with `whole`
    bool whole;            // the table's or index's own bucket
    Access access;
    friend bool operator==(const BucketKey&, const BucketKey&) = default;
  };
  struct BucketKeyHash {
    size_t operator()(const BucketKey& key) const;
  };
  struct Bucket {
    double tokens = 0;
    int64_t updated_ms = 0;
    double rate = 0;  // the limit it last refilled at (for pruning)
    double capacity = 0;
  };
  // What a bucket holds and refills, and what its exhaustion is called.
  struct Limit {
    double rate = 0;        // units per second
    double capacity = 0;    // units
    std::string_view name;  // "ProvisionedThroughputExceeded", …
  };
  Limit ResourceLimit(const TableDef& table, const IndexDef* index, Access access) const;
  Limit PartitionLimit(Access access) const;
  // The bucket's tokens at `now_ms` (refilled, capped), creating it full when absent.
  Bucket& Refilled(const BucketKey& key, const Limit& limit, int64_t now_ms);
  // The first bucket of `draws` holding no more than `need(draw)` units (admission: 0;
  // writes: their units, less a rounding margin), as a throttling exception.
  std::optional<Error> FirstShort(const TableDef& table, Access access,
                                  const std::vector<Draw>& draws, int64_t now_ms, bool need_units);
  // Subtracts the draws' units (`sign` -1 refunds them).
  void ChargeLocked(const TableDef& table, Access access, const std::vector<Draw>& draws,
                    int64_t now_ms, double sign = 1);
  // Forgets full buckets once the map has grown past its last pruned size.
  void PruneLocked(int64_t now_ms);

  const Limits limits_;
  mutable std::mutex mutex_;
  std::unordered_map<BucketKey, Bucket, BucketKeyHash> buckets_;
  size_t prune_at_ = 1024;
};

}  // namespace ddbd::capacity
