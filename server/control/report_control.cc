// GET /ddbd/report: the access-pattern report (insight/access_patterns.h) as JSON, or as text
// for people with ?format=text; the prices of the cost estimate may be given in the query.
#include <charconv>
#include <cstdio>

#include "server/control/control_api.h"
#include "server/http/exchange.h"
#include "storage/database.h"
#include "wire/json_writer.h"

namespace ddbd::server::control {
namespace {

using insight::NamespaceReport;
using insight::SiteReport;
using insight::TableReport;

// The query parameters that set a price, and where each goes.
struct PriceParameter {
  std::string_view name;
  double insight::Prices::*price;
};
constexpr PriceParameter kPriceParameters[] = {
    {"on_demand_read_per_million", &insight::Prices::on_demand_read_per_million},
    {"on_demand_write_per_million", &insight::Prices::on_demand_write_per_million},
    {"provisioned_read_per_hour", &insight::Prices::provisioned_read_per_hour},
    {"provisioned_write_per_hour", &insight::Prices::provisioned_write_per_hour},
    {"storage_per_gb_month", &insight::Prices::storage_per_gb_month},
};

struct ReportQuery {
  bool text = false;
  insight::Prices prices;
};

Result<ReportQuery> ReadQuery(std::string_view query) {
  ReportQuery read;
  while (!query.empty()) {
    const std::string_view pair = query.substr(0, query.find('&'));
    query.remove_prefix(std::min(query.size(), pair.size() + 1));
    const std::string_view name = pair.substr(0, pair.find('='));
    const std::string_view value =
        pair.size() > name.size() ? pair.substr(name.size() + 1) : std::string_view();
    if (name == "format") {
      if (value != "text" && value != "json") {
        return Error::Validation("format must be json or text");
      }
      read.text = value == "text";
      continue;
    }
    const auto parameter = std::find_if(std::begin(kPriceParameters), std::end(kPriceParameters),
                                        [&](const auto& p) { return p.name == name; });
    if (parameter == std::end(kPriceParameters)) {
      return Error::Validation("Unknown report parameter: " + std::string(name));
    }
    double price = -1;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), price);
    if (ec != std::errc() || end != value.data() + value.size() || price < 0) {
      return Error::Validation(std::string(name) + " must be a price of 0 or more (US dollars)");
    }
    read.prices.*(parameter->price) = price;
  }
  return read;
}

void WriteKeys(wire::JsonWriter& out, std::string_view name,
               const std::vector<insight::TopKeys::Entry>& keys, double total) {
  out.Key(name).BeginArray();
  for (const auto& key : keys) {
    out.BeginObject().Key("Key").String(key.label).Key("Units").Double(key.weight);
    out.Key("Share").Double(total > 0 ? key.weight / total : 0).EndObject();
  }
  out.EndArray();
}

void WriteSite(wire::JsonWriter& out, const SiteReport& site) {
  out.BeginObject();
  if (!site.index.empty()) out.Key("IndexName").String(site.index);
  out.Key("Kind").String(site.kind);
  if (!site.projection.empty()) out.Key("Projection").String(site.projection);
  out.Key("ContributorInsights").Bool(site.contributor_insights);
  out.Key("Gets").Int(site.gets).Key("Queries").Int(site.queries).Key("Scans").Int(site.scans);
  out.Key("FilteredQueries")
      .Int(site.filtered_queries)
      .Key("FilteredScans")
      .Int(site.filtered_scans);
  out.Key("ItemsRead").Int(site.items_read).Key("ItemsReturned").Int(site.items_returned);
  out.Key("FilteredItemsRead").Int(site.filtered_items_read);
  out.Key("FilteredItemsReturned").Int(site.filtered_items_returned);
  out.Key("Writes").Int(site.writes).Key("Throttled").Int(site.throttled);
  out.Key("ReadModifyWrites").Int(site.read_modify_writes);
  out.Key("LostUpdates").Int(site.lost_updates);
  out.Key("ReadUnits").Double(site.read_units).Key("WriteUnits").Double(site.write_units);
  out.Key("PeakReadUnitsPerSecond").Double(site.peak_read_units_per_second);
  out.Key("PeakWriteUnitsPerSecond").Double(site.peak_write_units_per_second);
  WriteKeys(out, "HotPartitionsByReads", site.hot_partitions_by_reads, site.partition_read_total);
  WriteKeys(out, "HotPartitionsByWrites", site.hot_partitions_by_writes,
            site.partition_write_total);
  WriteKeys(out, "HotItemsByReads", site.hot_items_by_reads, site.partition_read_total);
  WriteKeys(out, "HotItemsByWrites", site.hot_items_by_writes, site.partition_write_total);
  WriteKeys(out, "HotPartitionsByThrottles", site.hot_partitions_by_throttles,
            site.partition_throttle_total);
  out.Key("ItemSizes").BeginArray();
  for (size_t b = 0; b < site.item_sizes.size(); ++b) {
    out.BeginObject().Key("UpToBytes").Int(insight::kItemSizeBounds[b]);
    out.Key("Items").Int(site.item_sizes[b]).EndObject();
  }
  out.EndArray().Key("LargestItemBytes").Int(site.largest_item);
  out.EndObject();
}

void WriteTimeline(wire::JsonWriter& out, const insight::Timeline& timeline) {
  out.Key("Timeline").BeginObject().Key("SecondsEach").Int(1);
  out.Key("EndEpochSecond").Int(timeline.end_epoch_second).Key("Requests").BeginArray();
  for (uint64_t requests : timeline.requests) out.Int(requests);
  out.EndArray().Key("ReadUnits").BeginArray();
  for (double units : timeline.read_units) out.Double(units);
  out.EndArray().Key("WriteUnits").BeginArray();
  for (double units : timeline.write_units) out.Double(units);
  out.EndArray().EndObject();
}

void WriteTable(wire::JsonWriter& out, const TableReport& table) {
  out.BeginObject()
      .Key("TableName")
      .String(table.name)
      .Key("BillingMode")
      .String(table.billing_mode);
  out.Key("ItemCount").Int(table.item_count).Key("TableSizeBytes").Int(table.size_bytes);
  out.Key("Operations").BeginObject();
  for (const auto& [operation, count] : table.sites.front().operations) {
    out.Key(operation).Int(count);
  }
  out.EndObject().Key("Table");
  WriteSite(out, table.sites.front());
  out.Key("Indexes").BeginArray();
  for (size_t s = 1; s < table.sites.size(); ++s) WriteSite(out, table.sites[s]);
  out.EndArray();
  WriteTimeline(out, table.sites.front().timeline);
  out.Key("EstimatedMonthlyCost").BeginObject().Key("Currency").String("USD");
  out.Key("OnDemand").Double(table.cost.on_demand_per_month);
  out.Key("Provisioned").Double(table.cost.provisioned_per_month);
  out.Key("Storage").Double(table.cost.storage_per_month).EndObject();
  out.EndObject();
}

std::string RenderJson(const std::vector<NamespaceReport>& spaces, const insight::Prices& prices) {
  wire::JsonWriter out;
  out.BeginObject().Key("Prices").BeginObject();
  for (const auto& parameter : kPriceParameters) {
    out.Key(parameter.name).Double(prices.*(parameter.price));
  }
  out.EndObject().Key("Namespaces").BeginArray();
  for (const NamespaceReport& space : spaces) {
    out.BeginObject().Key("Name").String(space.name).Key("Tables").BeginArray();
    for (const TableReport& table : space.tables) WriteTable(out, table);
    out.EndArray().Key("Findings").BeginArray();
    for (const insight::Finding& finding : space.findings) {
      out.BeginObject().Key("Code").String(finding.code).Key("TableName").String(finding.table);
      if (!finding.index.empty()) out.Key("IndexName").String(finding.index);
      out.Key("Message").String(finding.message).EndObject();
    }
    out.EndArray().EndObject();
  }
  out.EndArray().EndObject();
  return out.Take();
}

}  // namespace

std::vector<NamespaceReport> BuildReport(Service& service, const insight::Prices& prices) {
  const auto tables = service.catalog().AllTables();
  service.access_patterns().Prune(tables);
  std::vector<std::pair<uint64_t, uint64_t>> counts_and_sizes;
  for (const auto& table : tables) {
    const storage::TableStats stats = service.db().Stats(table->id);
    counts_and_sizes.emplace_back(stats.item_count, stats.size_bytes);
  }
  return service.access_patterns().Report(
      tables, counts_and_sizes,
      [](std::string_view scope) { return Service::NamespaceOfScope(scope); }, prices);
}

std::optional<ControlReply> AnswerReport(Service& service, const ControlRequest& request) {
  const size_t question = request.path.find('?');
  const std::string_view path = request.path.substr(0, question);
  if (path != "/ddbd/report" && path != "/ddbd/report/") return std::nullopt;
  auto failed = [](const Error& error) {
    return ControlReply{error.http_status(), http::RenderErrorBody(error), ""};
  };
  if (request.method != "GET") {
    return failed(Error::ControlMethodNotAllowed(std::string(request.method) +
                                                 " is not allowed on /ddbd/report"));
  }
  Result<ReportQuery> query = ReadQuery(
      question == std::string_view::npos ? std::string_view() : request.path.substr(question + 1));
  if (!query.ok()) return failed(query.error());
  const std::vector<NamespaceReport> report = BuildReport(service, query->prices);
  if (query->text) return ControlReply{200, ReportText(report), "text/plain; charset=utf-8"};
  return ControlReply{200, RenderJson(report, query->prices), ""};
}

}  // namespace ddbd::server::control
