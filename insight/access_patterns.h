// The access-pattern report: what the application's requests did to each table and index —
// operations, Query against Scan, items read against items returned, the hottest partition
// keys and items, consumed units, item sizes, throttling — an estimated monthly cost at the
// observed rates, and findings in plain words about the patterns DynamoDB makes expensive
// (Scans on a frequent path, hot partitions, wasteful filters, unused or over-projected
// GSIs, items near 400 KB, unconditional writes that lose concurrent updates).
//
// The operations record as they run (server/ops/throttling.cc: RecordRead, RecordWrite; the
// exchange: RecordRequest); BuildReport reads it. Memory is bounded per table and index:
// counters, five TopKeys of 32 keys, a table's Timeline and its RaceWatch of 1,024 items.
//
// Entry points: AccessPatterns, BuildReport.
// Thread-safety: every AccessPatterns method may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "insight/race_watch.h"
#include "insight/top_keys.h"
#include "model/attribute_value.h"
#include "model/table_def.h"

namespace ddbd::insight {

enum class ReadKind : uint8_t { kGet, kQuery, kScan };

// One read of a table or an index (a GetItem or a key of a batch, a Query page, a Scan page).
struct ReadEvent {
  uint64_t table_id = 0;
  uint64_t index_id = 0;  // 0: the table itself
  ReadKind kind = ReadKind::kGet;
  bool filtered = false;  // a FilterExpression (or QueryFilter/ScanFilter) was given
  // Top-level attributes the read asked for (ProjectionExpression); nullopt: all of them.
  std::optional<size_t> attributes_asked;
  std::span<const AttributeValue> partition;  // empty for a Scan
  const AttributeValue* sort = nullptr;       // the item's, for a read of one item
  uint64_t partition_hash = 0;                // of `partition`, when not empty
  uint64_t items_read = 0;
  uint64_t items_returned = 0;
  double units = 0;
};

// One item written (put, update, delete) or a write that failed its condition.
struct WriteEvent {
  uint64_t table_id = 0;
  const AttributeValue* partition = nullptr;
  const AttributeValue* sort = nullptr;
  uint64_t partition_hash = 0;
  uint64_t item_size = 0;  // of the new image; 0 for a delete
  double units = 0;        // the table's, with its LSIs'
  // The GSIs it updated, with their units.
  std::vector<std::pair<uint64_t, double>> global_indexes;
  bool applied = false;  // written (not failed on its condition, not a ConditionCheck)
  // Its new image came only from the request: no condition, and a put or an update that only
  // SETs values it sent (race_watch.h).
  bool blind = false;
};

// A request refused for throughput on one partition key value of a table or index.
struct ThrottleEvent {
  uint64_t table_id = 0;
  uint64_t index_id = 0;  // 0: the table itself
  std::span<const AttributeValue> partition;
  uint64_t partition_hash = 0;
};

struct Prices {  // US dollars; defaults are us-east-1's standard table class
  double on_demand_read_per_million = 0.125;
  double on_demand_write_per_million = 0.625;
  double provisioned_read_per_hour = 0.00013;
  double provisioned_write_per_hour = 0.00065;
  double storage_per_gb_month = 0.25;
};

// Requests and units of a table (its indexes' included) second by second, by the system
// clock: the last kTimelineSeconds seconds, the oldest first, ending with the current one.
inline constexpr size_t kTimelineSeconds = 120;
struct Timeline {
  int64_t end_epoch_second = 0;
  std::vector<uint64_t> requests;
  std::vector<double> read_units, write_units;
};

// The counters of a table or index: kept while requests run, reported as they are.
struct SiteCounters {
  uint64_t gets = 0, queries = 0, scans = 0, filtered_queries = 0, filtered_scans = 0;
  uint64_t items_read = 0, items_returned = 0;
  uint64_t filtered_items_read = 0, filtered_items_returned = 0;  // by reads with a filter
  uint64_t writes = 0, throttled = 0;
  double read_units = 0, write_units = 0;
  // Blind writes of an item just read, and those of them that undid a change (race_watch.h).
  uint64_t read_modify_writes = 0, lost_updates = 0;
};

// What the report says of a table or an index.
struct SiteReport : SiteCounters {
  std::string index;                           // "" for the table
  std::string kind;                            // "TABLE", "GSI", "LSI" or "VECTOR"
  std::string projection;                      // an index's ProjectionType
  bool contributor_insights = false;           // enabled on this table or GSI
  std::map<std::string, uint64_t> operations;  // by operation name (tables only)
  double peak_read_units_per_second = 0, peak_write_units_per_second = 0;
  double observed_seconds = 0;
  std::vector<TopKeys::Entry> hot_partitions_by_reads, hot_partitions_by_writes;
  // Items by their whole key: for tables with a sort key only (otherwise the partitions').
  std::vector<TopKeys::Entry> hot_items_by_reads, hot_items_by_writes;
  // Partition key values by requests throttled on them (--enforce-capacity).
  std::vector<TopKeys::Entry> hot_partitions_by_throttles;
  double partition_read_total = 0, partition_write_total = 0, partition_throttle_total = 0;
  std::vector<uint64_t> item_sizes;  // items written per kItemSizeBounds bucket
  uint64_t largest_item = 0;
  std::optional<size_t> widest_read;  // most attributes a read asked for; nullopt: all
  bool any_read = false;
  Timeline timeline;             // tables only
  std::string lost_update_item;  // the key of the last lost update
};

// Upper bounds of the item-size buckets, in bytes (the last: DynamoDB's 400 KB limit).
inline constexpr uint64_t kItemSizeBounds[] = {1024, 4096, 16384, 65536, 262144, 409600};

struct Cost {
  double on_demand_per_month = 0;    // at the observed average rates
  double provisioned_per_month = 0;  // capacity for the observed peak second
  double storage_per_month = 0;
};

struct Finding {
  std::string code;  // scan-on-frequent-path, hot-partition, wasteful-filter, unused-index,
                     // over-projected-index, large-items, racing-writes
  std::string table;
  std::string index;    // "" when about the table
  std::string message;  // plain words, with the evidence
};

struct TableReport {
  std::string name;
  std::string billing_mode;
  uint64_t item_count = 0;
  uint64_t size_bytes = 0;
  std::vector<SiteReport> sites;  // the table first, then its indexes
  Cost cost;
};

struct NamespaceReport {
  std::string name;
  std::vector<TableReport> tables;
  std::vector<Finding> findings;
};

// The report of a table or index with nothing recorded: what it is, every figure zero.
SiteReport EmptySiteReport(std::string kind, std::string index = "", std::string projection = "");

// The monthly cost of a table and its indexes: on demand at the observed average rates (over
// at least one second), provisioned at the capacity of the busiest second, and storage.
Cost CostOf(const TableReport& table, const Prices& prices);

// What the report says in words about a table: each finding with its evidence.
std::vector<Finding> Findings(const TableReport& table);

class AccessPatterns {
 public:
  void RecordRead(const ReadEvent& read);
  void RecordWrite(const WriteEvent& write);
  void RecordThrottle(const ThrottleEvent& throttle);
  // A request answered, on the tables it touched (`table_ids`); `throttled` when its answer
  // was a throughput exception.
  void RecordRequest(std::span<const uint64_t> table_ids, std::string_view operation,
                     bool throttled);
  // Forgets the figures of a dropped table, or of every table not in `live`.
  void ForgetTable(uint64_t table_id);
  void Prune(const std::vector<std::shared_ptr<const TableDef>>& live);

  struct Site;  // a table's or index's figures
  // The report of `tables` (each with its item count and size), by namespace; `namespace_of`
  // names a table's scope. REQUIRES: Prune first, for a report of live tables only.
  std::vector<NamespaceReport> Report(
      const std::vector<std::shared_ptr<const TableDef>>& tables,
      const std::vector<std::pair<uint64_t, uint64_t>>& counts_and_sizes,
      const std::function<std::string(std::string_view)>& namespace_of, const Prices& prices);

  ~AccessPatterns();
  AccessPatterns();

 private:
  Site& At(uint64_t table_id, uint64_t index_id);  // REQUIRES: mutex_ held
  // Counts the read-modify-writes and lost updates of an applied write. REQUIRES: mutex_ held
  static void WatchForRaces(Site& site, const WriteEvent& write,
                            std::chrono::steady_clock::time_point now);

  std::mutex mutex_;
  std::map<std::pair<uint64_t, uint64_t>, std::unique_ptr<Site>> sites_;
};

}  // namespace ddbd::insight
