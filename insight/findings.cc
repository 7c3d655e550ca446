// Findings: the access patterns DynamoDB makes expensive, recognised in a table's report.
// Each rule's thresholds are written next to it; they are set so that one request never
// raises a finding and a pattern repeated through a test run does.
#include <cstdio>
#include <string>

#include "insight/access_patterns.h"

namespace ddbd::insight {
namespace {

std::string Percent(double part, double whole) {
  return std::to_string(static_cast<int>(whole > 0 ? part * 100 / whole + 0.5 : 0)) + "%";
}

std::string Units(double units) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", units);
  return text;
}

std::string Where(const TableReport& table, const SiteReport& site) {
  return site.index.empty() ? "table " + table.name
                            : site.kind + " " + site.index + " of table " + table.name;
}

// Scans are at least 10 and at least a fifth of the reads.
void ScanOnFrequentPath(const TableReport& table, const SiteReport& site,
                        std::vector<Finding>& out) {
  const uint64_t reads = site.gets + site.queries + site.scans;
  if (site.scans < 10 || site.scans * 5 < reads) return;
  out.push_back({"scan-on-frequent-path", table.name, site.index,
                 "Scan ran " + std::to_string(site.scans) + " times on " + Where(table, site) +
                     " (" + Percent(site.scans, reads) +
                     " of its reads): each Scan reads the "
                     "whole table and costs more as it grows. Serve this access with a Query "
                     "on the table's key or on an index."});
}

// One key value took at least half of 20 units or more, over 10 requests or more (a single
// large write is not traffic).
void HotPartition(const TableReport& table, const SiteReport& site, std::vector<Finding>& out) {
  struct Side {
    const char* what;
    const std::vector<TopKeys::Entry>& top;
    double total;
    uint64_t requests;
    const char* limit;
  };
  for (const Side& side : {Side{"read", site.hot_partitions_by_reads, site.partition_read_total,
                                site.gets + site.queries, "3,000 read units"},
                           Side{"write", site.hot_partitions_by_writes, site.partition_write_total,
                                site.writes, "1,000 write units"}}) {
    if (side.top.empty() || side.requests < 10 || side.total < 20 ||
        side.top.front().weight * 2 < side.total) {
      continue;
    }
    const TopKeys::Entry& hot = side.top.front();
    out.push_back({"hot-partition", table.name, site.index,
                   "Partition key value \"" + hot.label + "\" took " +
                       Percent(hot.weight, side.total) + " of the " + side.what + " units of " +
                       Where(table, site) + " (" + Units(hot.weight) + " of " + Units(side.total) +
                       "): one partition key value serves at most " + side.limit +
                       " a second however much capacity the table has. Spread "
                       "this traffic over more key values (a suffix, a finer key)."});
  }
}

// Filtered reads read at least 100 items and returned under a fifth of them.
void WastefulFilter(const TableReport& table, const SiteReport& site, std::vector<Finding>& out) {
  if (site.filtered_items_read < 100 ||
      site.filtered_items_returned * 5 >= site.filtered_items_read) {
    return;
  }
  const uint64_t discarded = site.filtered_items_read - site.filtered_items_returned;
  out.push_back({"wasteful-filter", table.name, site.index,
                 "Filters discarded " + Percent(discarded, site.filtered_items_read) + " of the " +
                     std::to_string(site.filtered_items_read) +
                     " items that filtered Queries and Scans of " + Where(table, site) +
                     " read (they returned " + std::to_string(site.filtered_items_returned) +
                     "): every item read is paid for. Put the condition in the key — a "
                     "sort-key condition, or an index keyed on the filtered attribute."});
}

// A GSI written at least 10 times and never read.
void UnusedIndex(const TableReport& table, const SiteReport& site, std::vector<Finding>& out) {
  if (site.kind != "GSI" || site.any_read || site.writes < 10) return;
  out.push_back({"unused-index", table.name, site.index,
                 "GSI " + site.index + " of table " + table.name + " was updated " +
                     std::to_string(site.writes) + " times (" + Units(site.write_units) +
                     " write units) and never read: every write to the table pays for it. "
                     "Drop it if no access pattern needs it."});
}

// A GSI or LSI projecting ALL, read at least 5 times, never for more than 3 attributes.
void OverProjectedIndex(const TableReport& table, const SiteReport& site,
                        std::vector<Finding>& out) {
  if (site.kind != "GSI" && site.kind != "LSI") return;
  if (site.projection != "ALL" || site.queries + site.scans < 5 || !site.widest_read ||
      *site.widest_read > 3) {
    return;
  }
  out.push_back({"over-projected-index", table.name, site.index,
                 site.kind + " " + site.index + " of table " + table.name +
                     " projects ALL attributes, but none of its " +
                     std::to_string(site.queries + site.scans) + " reads asked for more than " +
                     std::to_string(*site.widest_read) +
                     " (ProjectionExpression): KEYS_ONLY or INCLUDE of those attributes would "
                     "make its storage and every write that updates it cheaper."});
}

// An item of 300 KB or more: three quarters of DynamoDB's 400 KB limit.
void LargeItems(const TableReport& table, const SiteReport& site, std::vector<Finding>& out) {
  if (site.largest_item < 300 * 1024) return;
  out.push_back({"large-items", table.name, "",
                 "Items of up to " + std::to_string(site.largest_item / 1024) +
                     " KB were written to table " + table.name +
                     " (the limit is 400 KB, and each write costs a unit per KB): keep large "
                     "attributes in S3 with a pointer in the item, or split the item."});
}

// One lost update seen: a blind write replaced an item changed after its writer read it.
void RacingWrites(const TableReport& table, const SiteReport& site, std::vector<Finding>& out) {
  if (site.lost_updates == 0) return;
  out.push_back(
      {"racing-writes", table.name, "",
       std::to_string(site.lost_updates) + " unconditional write" +
           (site.lost_updates == 1 ? "" : "s") + " to table " + table.name +
           " replaced an item that another write had changed after it was read (last: \"" +
           site.lost_update_item + "\"), so that change was lost; " +
           std::to_string(site.read_modify_writes) +
           " writes in all overwrote an item just read with no condition. Make them "
           "conditional — check a version attribute in a ConditionExpression and retry on "
           "ConditionalCheckFailedException — or atomic (UpdateItem with ADD, or SET a = a + "
           ":n)."});
}

}  // namespace

std::vector<Finding> Findings(const TableReport& table) {
  std::vector<Finding> found;
  for (const SiteReport& site : table.sites) {
    ScanOnFrequentPath(table, site, found);
    HotPartition(table, site, found);
    WastefulFilter(table, site, found);
    UnusedIndex(table, site, found);
    OverProjectedIndex(table, site, found);
    LargeItems(table, site, found);
    RacingWrites(table, site, found);
  }
  return found;
}

}  // namespace ddbd::insight
