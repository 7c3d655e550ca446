#include "server/metrics.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>

#include "server/service.h"

namespace ddbd::server {
namespace {

// A label value as the text format wants it: backslash, quote and newline escaped.
std::string LabelValue(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') out.push_back('\\');
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out.push_back(c);
  }
  return out;
}

// The shortest text that reads back as `value` ("0.00025", "3", "1e+21").
std::string Number(double value) {
  char text[32];
  const auto [end, ec] = std::to_chars(text, text + sizeof text, value);
  return std::string(text, ec == std::errc() ? end : text);
}

void Family(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  out.append("# HELP ").append(name).append(" ").append(help).append("\n");
  out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

void Sample(std::string& out, std::string_view name, std::string_view labels, double value) {
  out.append(name);
  if (!labels.empty()) out.append("{").append(labels).append("}");
  out.append(" ").append(Number(value)).append("\n");
}

// The labels of a table's samples: its namespace and name.
std::string TableLabels(const TableDef& table) {
  return "namespace=\"" + LabelValue(Service::NamespaceOfScope(table.scope)) + "\",table=\"" +
         LabelValue(table.name) + "\"";
}

// The families with a sample per table and per secondary index: what each consumed.
struct ConsumedFamily {
  std::string_view name;
  std::string_view help;
  double (*value)(const ConsumedFigures&);
};
constexpr ConsumedFamily kConsumedFamilies[] = {
    {"ddbd_consumed_read_units_total",
     "Read capacity units consumed, as DynamoDB meters them, by namespace, table and index.",
     [](const ConsumedFigures& f) { return f.read_units; }},
    {"ddbd_consumed_write_units_total",
     "Write capacity units consumed, as DynamoDB meters them, by namespace, table and index.",
     [](const ConsumedFigures& f) { return f.write_units; }},
    {"ddbd_read_items_total",
     "Items read (a Query's or Scan's scanned items), by namespace, "
     "table and index.",
     [](const ConsumedFigures& f) { return static_cast<double>(f.items_read); }},
    {"ddbd_read_bytes_total", "Size of the items read, by DynamoDB's measure.",
     [](const ConsumedFigures& f) { return static_cast<double>(f.bytes_read); }},
    {"ddbd_written_items_total",
     "Items put, updated or deleted (index entries for an index), by "
     "namespace, table and index.",
     [](const ConsumedFigures& f) { return static_cast<double>(f.items_written); }},
    {"ddbd_written_bytes_total",
     "Size of the items written (their new images), by DynamoDB's "
     "measure, by namespace and table.",
     [](const ConsumedFigures& f) { return static_cast<double>(f.bytes_written); }},
};

// The process's resident set, from /proc/self/statm (pages).
uint64_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

// Per stream trigger: batches by outcome, records by fate, and the iterator age.
void RenderTriggers(std::string& out, Service& service) {
  const auto views = service.triggers().List();
  if (views.empty()) return;
  std::string records, ages;
  Family(out, "ddbd_trigger_batches_total", "counter",
         "Batches a stream trigger's handler was invoked with, by trigger and outcome "
         "(delivered, failed, retried).");
  Family(records, "ddbd_trigger_records_total", "counter",
         "Stream records a trigger handled, by trigger and fate (delivered, filtered, "
         "discarded).");
  Family(ages, "ddbd_trigger_iterator_age_seconds", "gauge",
         "How old the oldest record a trigger has not delivered yet is.");
  for (const triggers::TriggerView& view : views) {
    const triggers::TriggerStatistics& s = view.statistics;
    const std::string name = "trigger=\"" + LabelValue(view.definition.name) + "\"";
    const std::pair<const char*, uint64_t> batches[] = {{"delivered", s.batches_delivered},
                                                        {"failed", s.batches_failed},
                                                        {"retried", s.batches_retried}};
    for (const auto& [outcome, count] : batches) {
      Sample(out, "ddbd_trigger_batches_total", name + ",outcome=\"" + outcome + "\"",
             static_cast<double>(count));
    }
    const std::pair<const char*, uint64_t> fates[] = {{"delivered", s.records_delivered},
                                                      {"filtered", s.records_filtered},
                                                      {"discarded", s.records_discarded}};
    for (const auto& [fate, count] : fates) {
      Sample(records, "ddbd_trigger_records_total", name + ",fate=\"" + fate + "\"",
             static_cast<double>(count));
    }
    Sample(ages, "ddbd_trigger_iterator_age_seconds", name,
           static_cast<double>(s.iterator_age_ms) / 1000.0);
  }
  out += records;
  out += ages;
}

}  // namespace

void Metrics::CountConsumption(const Consumption& consumption) {
  std::lock_guard lock(mutex_);
  for (const auto& [site, figures] : consumption.sites()) consumed_[site].Add(figures);
}

void Metrics::ForgetTable(uint64_t table_id) {
  std::lock_guard lock(mutex_);
  std::erase_if(consumed_, [&](const auto& entry) { return entry.first.table_id == table_id; });
}

void Metrics::CountRequest(std::string_view operation, std::string_view error_type,
                           double seconds) {
  size_t bucket = 0;
  while (bucket < kLatencyBuckets.size() && seconds > kLatencyBuckets[bucket]) ++bucket;
  std::lock_guard lock(mutex_);
  ++requests_[{operation, error_type.empty() ? std::string_view("ok") : error_type}];
  Latency& latency = latencies_[operation];
  if (bucket < kLatencyBuckets.size()) ++latency.buckets[bucket];
  ++latency.count;
  latency.sum += seconds;
}

uint64_t Metrics::RequestsAnswered() const {
  std::lock_guard lock(mutex_);
  uint64_t answered = 0;
  for (const auto& entry : requests_) answered += entry.second;
  return answered;
}

std::string Metrics::Render(Service& service) const {
  std::string out;
  {
    std::lock_guard lock(mutex_);
    Family(out, "ddbd_requests_total", "counter",
           "DynamoDB API requests answered, by operation and outcome (ok or the error type).");
    for (const auto& [key, count] : requests_) {
      Sample(
          out, "ddbd_requests_total",
          "operation=\"" + LabelValue(key.first) + "\",outcome=\"" + LabelValue(key.second) + "\"",
          static_cast<double>(count));
    }
    Family(out, "ddbd_request_duration_seconds", "histogram",
           "Time from a request's arrival to its answer, by operation.");
    for (const auto& [operation, latency] : latencies_) {
      const std::string op = "operation=\"" + LabelValue(operation) + "\"";
      uint64_t cumulative = 0;
      for (size_t i = 0; i < kLatencyBuckets.size(); ++i) {
        cumulative += latency.buckets[i];
        Sample(out, "ddbd_request_duration_seconds_bucket",
               op + ",le=\"" + Number(kLatencyBuckets[i]) + "\"", static_cast<double>(cumulative));
      }
      Sample(out, "ddbd_request_duration_seconds_bucket", op + ",le=\"+Inf\"",
             static_cast<double>(latency.count));
      Sample(out, "ddbd_request_duration_seconds_sum", op, latency.sum);
      Sample(out, "ddbd_request_duration_seconds_count", op, static_cast<double>(latency.count));
    }
  }
  Family(out, "ddbd_stream_records_total", "counter",
         "Stream records written (the sequence number of the last one).");
  Sample(out, "ddbd_stream_records_total", "",
         static_cast<double>(service.db().LastStreamSequence()));
  Family(out, "ddbd_ttl_deletions_total", "counter",
         "Items deleted by Time to Live since the process started.");
  Sample(out, "ddbd_ttl_deletions_total", "", static_cast<double>(service.ttl().deleted_total()));
  Family(out, "ddbd_vector_searches_total", "counter",
         "Vector searches run (SearchVectors) since the process started.");
  Sample(out, "ddbd_vector_searches_total", "",
         static_cast<double>(vector_searches_.load(std::memory_order_relaxed)));
  Family(out, "ddbd_open_connections", "gauge", "Client connections open now.");
  Sample(out, "ddbd_open_connections", "", open_connections_ ? open_connections_() : 0);

  RenderTables(out, service);
  RenderTriggers(out, service);

  for (const auto& figure : service.db().EngineFigures()) {
    const std::string name = "ddbd_storage_" + std::string(figure.name);
    Family(out, name, "gauge", figure.help);
    Sample(out, name, "", static_cast<double>(figure.value));
  }
  Family(out, "ddbd_process_resident_memory_bytes", "gauge", "Resident memory of the process.");
  Sample(out, "ddbd_process_resident_memory_bytes", "", static_cast<double>(ResidentBytes()));
  return out;
}

void Metrics::RenderTables(std::string& out, Service& service) const {
  const auto tables = service.catalog().AllTables();
  std::map<ConsumedSite, ConsumedFigures> consumed;
  {
    std::lock_guard lock(mutex_);
    std::erase_if(consumed_, [&](const auto& entry) {
      return std::none_of(tables.begin(), tables.end(),
                          [&](const auto& table) { return table->id == entry.first.table_id; });
    });
    consumed = consumed_;
  }
  Family(out, "ddbd_table_items", "gauge", "Items in a table, by namespace and table.");
  std::string sizes;
  Family(sizes, "ddbd_table_size_bytes", "gauge",
         "Size of a table's items by DynamoDB's measure, by namespace and table.");
  std::string families[std::size(kConsumedFamilies)];
  for (size_t f = 0; f < std::size(kConsumedFamilies); ++f) {
    Family(families[f], kConsumedFamilies[f].name, "counter", kConsumedFamilies[f].help);
  }
  auto consumed_samples = [&](const ConsumedSite& site, const std::string& labels) {
    const auto found = consumed.find(site);
    const ConsumedFigures figures = found == consumed.end() ? ConsumedFigures{} : found->second;
    for (size_t f = 0; f < std::size(kConsumedFamilies); ++f) {
      Sample(families[f], kConsumedFamilies[f].name, labels, kConsumedFamilies[f].value(figures));
    }
  };
  for (const auto& table : tables) {
    const storage::TableStats stats = service.db().Stats(table->id);
    const std::string labels = TableLabels(*table);
    Sample(out, "ddbd_table_items", labels, static_cast<double>(stats.item_count));
    Sample(sizes, "ddbd_table_size_bytes", labels, static_cast<double>(stats.size_bytes));
    consumed_samples({table->id, 0}, labels);
    for (const IndexDef& index : table->indexes) {
      consumed_samples({table->id, index.id}, labels + ",index=\"" + LabelValue(index.name) + "\"");
    }
  }
  out += sizes;
  for (const std::string& family : families) out += family;
  RenderBackfills(out, service, tables);
}

void Metrics::RenderBackfills(std::string& out, Service& service,
                              const std::vector<std::shared_ptr<const TableDef>>& tables) {
  std::string totals;
  Family(out, "ddbd_index_backfill_items_done", "gauge",
         "Items a running index backfill has indexed, by namespace, table and index.");
  Family(totals, "ddbd_index_backfill_items_total", "gauge",
         "Items the table held when a running index backfill started.");
  for (const index::BackfillProgress& backfill : service.backfills().Running()) {
    const auto table = std::find_if(tables.begin(), tables.end(),
                                    [&](const auto& t) { return t->id == backfill.table_id; });
    const IndexDef* index =
        table == tables.end() ? nullptr : (*table)->FindIndexById(backfill.index_id);
    if (!index) continue;
    const std::string labels = TableLabels(**table) + ",index=\"" + LabelValue(index->name) + "\"";
    Sample(out, "ddbd_index_backfill_items_done", labels, static_cast<double>(backfill.items_done));
    Sample(totals, "ddbd_index_backfill_items_total", labels,
           static_cast<double>(backfill.items_total));
  }
  out += totals;
}

}  // namespace ddbd::server
