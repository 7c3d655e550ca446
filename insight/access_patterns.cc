// Recording accesses and building the access-pattern report.
#include "insight/access_patterns.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>

namespace ddbd::insight {
namespace {

using Clock = std::chrono::steady_clock;

constexpr double kSecondsPerMonth = 730.0 * 3600;  // AWS prices a month as 730 hours
constexpr size_t kHotKeysShown = 5;

// A key value as people read it: a string as is, a number's text, a binary's first bytes in
// hex; long values cut at 64 bytes.
std::string KeyText(const AttributeValue& value) {
  constexpr size_t kLongest = 64;
  if (value.type() != AttributeType::kB) {
    const std::string& text = value.scalar();
    return text.size() <= kLongest ? text : text.substr(0, kLongest) + "…";
  }
  std::string hex = "0x";
  const std::string& bytes = value.scalar();
  for (size_t i = 0; i < bytes.size() && i < kLongest / 2; ++i) {
    char digits[3];
    std::snprintf(digits, sizeof digits, "%02x", static_cast<unsigned char>(bytes[i]));
    hex += digits;
  }
  return bytes.size() > kLongest / 2 ? hex + "…" : hex;
}

std::string KeysText(std::span<const AttributeValue> values) {
  std::string text;
  for (const AttributeValue& value : values) {
    if (!text.empty()) text += ", ";
    text += KeyText(value);
  }
  return text;
}

// Combines a partition hash with a sort key into an item's hash.
uint64_t ItemHash(uint64_t partition_hash, const AttributeValue* sort) {
  if (!sort) return partition_hash;
  return partition_hash ^ (std::hash<std::string>()(sort->scalar()) * 0x9e3779b97f4a7c15ULL);
}

// Units per second: the peak of any one-second window, by the steady clock.
struct PeakRate {
  int64_t second = -1;
  double in_second = 0;
  double peak = 0;
  void Add(double units, int64_t now_second) {
    if (now_second != second) {
      second = now_second;
      in_second = 0;
    }
    in_second += units;
    peak = std::max(peak, in_second);
  }
};

// Seconds of the steady clock: what the busiest second and the timeline count in. A record
// reads the clock once; the timeline is put on the calendar when reported.
int64_t SecondOf(Clock::time_point at) {
  return std::chrono::duration_cast<std::chrono::seconds>(at.time_since_epoch()).count();
}

// One second of a table's timeline.
struct TimelineSecond {
  int64_t second = -1;  // SecondOf
  uint64_t requests = 0;
  double read_units = 0, write_units = 0;
};

}  // namespace

struct AccessPatterns::Site {
  std::map<std::string, uint64_t, std::less<>> operations;
  SiteCounters counts;
  PeakRate read_rate, write_rate;
  std::optional<Clock::time_point> first, last;
  TopKeys partitions_read, partitions_written, items_read_keys, items_written_keys;
  TopKeys partitions_throttled;
  std::vector<uint64_t> item_sizes = std::vector<uint64_t>(std::size(kItemSizeBounds), 0);
  uint64_t largest_item = 0;
  bool any_read = false;
  std::optional<size_t> widest_read = 0;  // nullopt once a read asked for everything
  std::array<TimelineSecond, kTimelineSeconds> timeline;  // a ring, by SecondOf
  RaceWatch races;                                        // tables only
  std::string lost_update_item;

  TimelineSecond& InTimeline(int64_t second) {
    TimelineSecond& slot = timeline[static_cast<uint64_t>(second) % kTimelineSeconds];
    if (slot.second != second) slot = TimelineSecond{second};
    return slot;
  }

  // Marks the site used at `now`; returns its second.
  int64_t Touch(Clock::time_point now) {
    if (!first) first = now;
    last = now;
    return SecondOf(now);
  }
};

AccessPatterns::AccessPatterns() = default;
AccessPatterns::~AccessPatterns() = default;

AccessPatterns::Site& AccessPatterns::At(uint64_t table_id, uint64_t index_id) {
  std::unique_ptr<Site>& site = sites_[{table_id, index_id}];
  if (!site) site = std::make_unique<Site>();
  return *site;
}

void AccessPatterns::RecordRead(const ReadEvent& read) {
  std::lock_guard lock(mutex_);
  Site& site = At(read.table_id, read.index_id);
  const int64_t second = site.Touch(Clock::now());
  site.read_rate.Add(read.units, second);
  site.counts.read_units += read.units;
  (read.index_id == 0 ? site : At(read.table_id, 0)).InTimeline(second).read_units += read.units;
  site.counts.items_read += read.items_read;
  site.counts.items_returned += read.items_returned;
  if (read.filtered) {
    site.counts.filtered_items_read += read.items_read;
    site.counts.filtered_items_returned += read.items_returned;
  }
  site.any_read = true;
  switch (read.kind) {
    case ReadKind::kGet:
      ++site.counts.gets;
      break;
    case ReadKind::kQuery:
      ++site.counts.queries;
      site.counts.filtered_queries += read.filtered;
      break;
    case ReadKind::kScan:
      ++site.counts.scans;
      site.counts.filtered_scans += read.filtered;
      break;
  }
  if (!read.attributes_asked) {
    site.widest_read.reset();
  } else if (site.widest_read) {
    site.widest_read = std::max(*site.widest_read, *read.attributes_asked);
  }
  if (read.partition.empty()) return;
  if (read.kind == ReadKind::kGet && read.index_id == 0) {
    site.races.Read(ItemHash(read.partition_hash, read.sort));
  }
  site.partitions_read.Add(read.partition_hash, read.units,
                           [&] { return KeysText(read.partition); });
  // Items are told apart from their partitions only by a sort key.
  if (read.kind == ReadKind::kGet && read.sort) {
    site.items_read_keys.Add(ItemHash(read.partition_hash, read.sort), read.units, [&] {
      return KeysText(read.partition) + " / " + KeyText(*read.sort);
    });
  }
}

void AccessPatterns::WatchForRaces(Site& site, const WriteEvent& write, Clock::time_point now) {
  const int64_t now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  switch (site.races.Write(ItemHash(write.partition_hash, write.sort), write.blind, now_ms)) {
    case RaceWatch::Verdict::kOther:
      break;
    case RaceWatch::Verdict::kReadModifyWrite:
      ++site.counts.read_modify_writes;
      break;
    case RaceWatch::Verdict::kLostUpdate:
      ++site.counts.read_modify_writes;
      ++site.counts.lost_updates;
      site.lost_update_item = KeyText(*write.partition);
      if (write.sort) site.lost_update_item += " / " + KeyText(*write.sort);
      break;
  }
}

void AccessPatterns::RecordWrite(const WriteEvent& write) {
  std::lock_guard lock(mutex_);
  Site& site = At(write.table_id, 0);
  const Clock::time_point now = Clock::now();
  const int64_t second = site.Touch(now);
  site.write_rate.Add(write.units, second);
  site.counts.write_units += write.units;
  TimelineSecond& in_timeline = site.InTimeline(second);
  in_timeline.write_units += write.units;
  ++site.counts.writes;
  const auto bucket =
      std::lower_bound(std::begin(kItemSizeBounds), std::end(kItemSizeBounds), write.item_size);
  if (write.item_size > 0 && bucket != std::end(kItemSizeBounds)) {
    ++site.item_sizes[bucket - std::begin(kItemSizeBounds)];
  }
  site.largest_item = std::max(site.largest_item, write.item_size);
  if (write.partition && write.applied) WatchForRaces(site, write, now);
  if (write.partition) {
    site.partitions_written.Add(write.partition_hash, write.units,
                                [&] { return KeyText(*write.partition); });
    if (write.sort) {
      site.items_written_keys.Add(ItemHash(write.partition_hash, write.sort), write.units, [&] {
        return KeyText(*write.partition) + " / " + KeyText(*write.sort);
      });
    }
  }
  for (const auto& [index_id, units] : write.global_indexes) {
    in_timeline.write_units += units;
    Site& index = At(write.table_id, index_id);
    index.write_rate.Add(units, index.Touch(now));
    index.counts.write_units += units;
    ++index.counts.writes;
  }
}

void AccessPatterns::RecordThrottle(const ThrottleEvent& throttle) {
  if (throttle.partition.empty()) return;  // a Scan's: no one partition to blame
  std::lock_guard lock(mutex_);
  At(throttle.table_id, throttle.index_id)
      .partitions_throttled.Add(throttle.partition_hash, 1,
                                [&] { return KeysText(throttle.partition); });
}

void AccessPatterns::RecordRequest(std::span<const uint64_t> table_ids, std::string_view operation,
                                   bool throttled) {
  std::lock_guard lock(mutex_);
  const Clock::time_point now = Clock::now();
  for (uint64_t table_id : table_ids) {
    Site& site = At(table_id, 0);
    ++site.InTimeline(site.Touch(now)).requests;
    auto found = site.operations.find(operation);
    if (found == site.operations.end()) found = site.operations.emplace(operation, 0).first;
    ++found->second;
    site.counts.throttled += throttled;
  }
}

void AccessPatterns::ForgetTable(uint64_t table_id) {
  std::lock_guard lock(mutex_);
  std::erase_if(sites_, [&](const auto& entry) { return entry.first.first == table_id; });
}

void AccessPatterns::Prune(const std::vector<std::shared_ptr<const TableDef>>& live) {
  std::lock_guard lock(mutex_);
  std::erase_if(sites_, [&](const auto& entry) {
    return std::none_of(live.begin(), live.end(),
                        [&](const auto& table) { return table->id == entry.first.first; });
  });
}

namespace {

SiteReport ReportOf(const AccessPatterns::Site* site, std::string index, std::string kind,
                    std::string projection);

}  // namespace

std::vector<NamespaceReport> AccessPatterns::Report(
    const std::vector<std::shared_ptr<const TableDef>>& tables,
    const std::vector<std::pair<uint64_t, uint64_t>>& counts_and_sizes,
    const std::function<std::string(std::string_view)>& namespace_of, const Prices& prices) {
  std::lock_guard lock(mutex_);
  auto find = [&](uint64_t table_id, uint64_t index_id) -> const Site* {
    const auto found = sites_.find({table_id, index_id});
    return found == sites_.end() ? nullptr : found->second.get();
  };
  std::map<std::string, NamespaceReport> by_namespace;
  for (size_t t = 0; t < tables.size(); ++t) {
    const TableDef& table = *tables[t];
    TableReport report;
    report.name = table.name;
    report.billing_mode =
        table.billing_mode == BillingMode::kPayPerRequest ? "PAY_PER_REQUEST" : "PROVISIONED";
    std::tie(report.item_count, report.size_bytes) = counts_and_sizes[t];
    report.sites.push_back(ReportOf(find(table.id, 0), "", "TABLE", ""));
    report.sites.back().contributor_insights =
        table.contributor_insights && table.contributor_insights->enabled;
    for (const IndexDef& index : table.indexes) {
      const char* kind = index.IsVector() ? "VECTOR" : index.local ? "LSI" : "GSI";
      report.sites.push_back(ReportOf(find(table.id, index.id), index.name, kind,
                                      std::string(ProjectionTypeName(index.projection))));
      report.sites.back().contributor_insights =
          index.contributor_insights && index.contributor_insights->enabled;
    }
    report.cost = CostOf(report, prices);
    NamespaceReport& space = by_namespace[namespace_of(table.scope)];
    space.tables.push_back(std::move(report));
  }
  std::vector<NamespaceReport> reports;
  for (auto& [name, space] : by_namespace) {
    space.name = name;
    std::sort(space.tables.begin(), space.tables.end(),
              [](const TableReport& a, const TableReport& b) { return a.name < b.name; });
    for (const TableReport& table : space.tables) {
      std::vector<Finding> found = Findings(table);
      space.findings.insert(space.findings.end(), found.begin(), found.end());
    }
    reports.push_back(std::move(space));
  }
  return reports;
}

namespace {

// The timeline of the seconds up to now, put on the calendar (its steady seconds shifted to
// the system clock's).
Timeline TimelineOf(const AccessPatterns::Site& site) {
  Timeline timeline;
  timeline.end_epoch_second = std::chrono::duration_cast<std::chrono::seconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count();
  const int64_t end = SecondOf(Clock::now());
  for (int64_t s = end - int64_t{kTimelineSeconds} + 1; s <= end; ++s) {
    const TimelineSecond& second = site.timeline[static_cast<uint64_t>(s) % kTimelineSeconds];
    const bool current = second.second == s;
    timeline.requests.push_back(current ? second.requests : 0);
    timeline.read_units.push_back(current ? second.read_units : 0);
    timeline.write_units.push_back(current ? second.write_units : 0);
  }
  return timeline;
}

SiteReport ReportOf(const AccessPatterns::Site* site, std::string index, std::string kind,
                    std::string projection) {
  SiteReport report = EmptySiteReport(std::move(kind), std::move(index), std::move(projection));
  if (!site) return report;
  report.operations.insert(site->operations.begin(), site->operations.end());
  static_cast<SiteCounters&>(report) = site->counts;
  report.peak_read_units_per_second = site->read_rate.peak;
  report.peak_write_units_per_second = site->write_rate.peak;
  if (site->first) {
    report.observed_seconds = std::chrono::duration<double>(*site->last - *site->first).count();
  }
  report.hot_partitions_by_reads = site->partitions_read.Top(kHotKeysShown);
  report.hot_partitions_by_writes = site->partitions_written.Top(kHotKeysShown);
  report.hot_items_by_reads = site->items_read_keys.Top(kHotKeysShown);
  report.hot_items_by_writes = site->items_written_keys.Top(kHotKeysShown);
  report.partition_read_total = site->partitions_read.total();
  report.partition_write_total = site->partitions_written.total();
  report.hot_partitions_by_throttles = site->partitions_throttled.Top(kHotKeysShown);
  report.partition_throttle_total = site->partitions_throttled.total();
  report.item_sizes = site->item_sizes;
  report.largest_item = site->largest_item;
  report.widest_read = site->widest_read;
  report.any_read = site->any_read;
  report.timeline = TimelineOf(*site);
  report.lost_update_item = site->lost_update_item;
  return report;
}

}  // namespace

SiteReport EmptySiteReport(std::string kind, std::string index, std::string projection) {
  SiteReport report;
  report.kind = std::move(kind);
  report.index = std::move(index);
  report.projection = std::move(projection);
  report.item_sizes.assign(std::size(kItemSizeBounds), 0);
  report.widest_read = 0;
  return report;
}

Cost CostOf(const TableReport& table, const Prices& prices) {
  Cost cost;
  for (const SiteReport& site : table.sites) {
    // Rates over at least a second: a test's burst is priced as if it lasted one.
    const double seconds = std::max(1.0, site.observed_seconds);
    cost.on_demand_per_month += (site.read_units * prices.on_demand_read_per_million +
                                 site.write_units * prices.on_demand_write_per_million) /
                                1e6 / seconds * kSecondsPerMonth;
    cost.provisioned_per_month +=
        (std::ceil(site.peak_read_units_per_second) * prices.provisioned_read_per_hour +
         std::ceil(site.peak_write_units_per_second) * prices.provisioned_write_per_hour) *
        730.0;
  }
  cost.storage_per_month =
      static_cast<double>(table.size_bytes) / (1024.0 * 1024 * 1024) * prices.storage_per_gb_month;
  return cost;
}

}  // namespace ddbd::insight
