// The access-pattern report as text, for a person reading a CI job's artifact.
#include <cstdio>
#include <string>

#include "server/control/control_api.h"

namespace ddbd::server::control {
namespace {

using insight::SiteReport;
using insight::TableReport;

// printf into a string.
template <typename... Args>
std::string Format(const char* format, Args... args) {
  char text[512];
  std::snprintf(text, sizeof text, format, args...);
  return text;
}

std::string Size(uint64_t bytes) {
  if (bytes < 1024) return Format("%llu B", static_cast<unsigned long long>(bytes));
  if (bytes < 1024 * 1024) return Format("%.1f KB", static_cast<double>(bytes) / 1024);
  return Format("%.1f MB", static_cast<double>(bytes) / (1024 * 1024));
}

std::string Keys(const std::vector<insight::TopKeys::Entry>& keys, double total, const char* unit) {
  std::string text;
  for (const auto& key : keys) {
    if (!text.empty()) text += ", ";
    text += "\"" + key.label + "\" " +
            Format("%.0f%% (%g of %g %s)", total > 0 ? key.weight * 100 / total : 0, key.weight,
                   total, unit);
  }
  return text;
}

void SiteLines(std::string& out, const SiteReport& site, const char* indent) {
  const uint64_t reads = site.gets + site.queries + site.scans;
  if (reads > 0) {
    out += Format(
        "%sreads: %llu gets, %llu queries (%llu filtered), %llu scans (%llu filtered); "
        "items read %llu, returned %llu\n",
        indent, static_cast<unsigned long long>(site.gets),
        static_cast<unsigned long long>(site.queries),
        static_cast<unsigned long long>(site.filtered_queries),
        static_cast<unsigned long long>(site.scans),
        static_cast<unsigned long long>(site.filtered_scans),
        static_cast<unsigned long long>(site.items_read),
        static_cast<unsigned long long>(site.items_returned));
  }
  out += Format(
      "%sunits: %g read, %g write (busiest second: %g read, %g write)%s\n", indent, site.read_units,
      site.write_units, site.peak_read_units_per_second, site.peak_write_units_per_second,
      site.throttled
          ? Format("; %llu requests throttled", static_cast<unsigned long long>(site.throttled))
                .c_str()
          : "");
  struct KeyList {
    const char* by;
    const std::vector<insight::TopKeys::Entry>& keys;
    double total;
    const char* unit;
  };
  for (const KeyList& list :
       {KeyList{"reads", site.hot_partitions_by_reads, site.partition_read_total, "units"},
        KeyList{"writes", site.hot_partitions_by_writes, site.partition_write_total, "units"},
        KeyList{"throttles", site.hot_partitions_by_throttles, site.partition_throttle_total,
                "throttled requests"}}) {
    if (list.keys.empty()) continue;
    out += std::string(indent) + "hot partition keys by " + list.by + ": " +
           Keys(list.keys, list.total, list.unit) + "\n";
  }
  if (site.largest_item > 0) {
    std::string sizes;
    for (size_t b = 0; b < site.item_sizes.size(); ++b) {
      if (site.item_sizes[b] == 0) continue;
      sizes += Format("%s≤%s: %llu", sizes.empty() ? "" : ", ",
                      Size(insight::kItemSizeBounds[b]).c_str(),
                      static_cast<unsigned long long>(site.item_sizes[b]));
    }
    out += std::string(indent) + "item sizes written: " + sizes + "; largest " +
           Size(site.largest_item) + "\n";
  }
  if (site.read_modify_writes > 0) {
    out += Format("%sunconditional writes of an item just read: %llu (%llu lost an update)\n",
                  indent, static_cast<unsigned long long>(site.read_modify_writes),
                  static_cast<unsigned long long>(site.lost_updates));
  }
}

void TableLines(std::string& out, const TableReport& table) {
  out += Format("\nTable %s (%s, %llu item%s, %s)\n", table.name.c_str(),
                table.billing_mode.c_str(), static_cast<unsigned long long>(table.item_count),
                table.item_count == 1 ? "" : "s", Size(table.size_bytes).c_str());
  std::string operations;
  for (const auto& [operation, count] : table.sites.front().operations) {
    operations += Format("%s%s %llu", operations.empty() ? "" : ", ", operation.c_str(),
                         static_cast<unsigned long long>(count));
  }
  if (!operations.empty()) out += "  requests: " + operations + "\n";
  if (table.sites.front().contributor_insights) out += "  Contributor Insights: enabled\n";
  SiteLines(out, table.sites.front(), "  ");
  for (size_t s = 1; s < table.sites.size(); ++s) {
    const SiteReport& index = table.sites[s];
    out += Format("  %s %s (%s%s)\n", index.kind.c_str(), index.index.c_str(),
                  index.projection.c_str(),
                  index.contributor_insights ? ", Contributor Insights enabled" : "");
    SiteLines(out, index, "    ");
  }
  out += Format(
      "  estimated monthly cost at these rates: on demand $%.2f, provisioned $%.2f, "
      "storage $%.2f\n",
      table.cost.on_demand_per_month, table.cost.provisioned_per_month,
      table.cost.storage_per_month);
}

}  // namespace

std::string ReportText(const std::vector<insight::NamespaceReport>& report) {
  std::string out = "ddbd access-pattern report\n";
  if (report.empty()) out += "\nNo tables.\n";
  for (const insight::NamespaceReport& space : report) {
    out += "\n== Namespace " + space.name + "\n";
    for (const TableReport& table : space.tables) TableLines(out, table);
    out += space.findings.empty() ? "\nFindings: none\n" : "\nFindings:\n";
    for (const insight::Finding& finding : space.findings) {
      out += "  [" + finding.code + "] " + finding.message + "\n";
    }
  }
  return out;
}

}  // namespace ddbd::server::control
