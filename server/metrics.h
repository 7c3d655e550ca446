// Metrics: the counters behind GET /metrics, rendered in Prometheus' text exposition format
// (version 0.0.4). Request counters and latency histograms are recorded as requests are
// answered; table, storage and process figures are read when the page is rendered.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/table_def.h"
#include "server/consumption.h"

namespace ddbd::server {

class Service;

class Metrics {
 public:
  // Upper bounds of the latency histograms' buckets, in seconds (+Inf is implied).
  static constexpr std::array<double, 14> kLatencyBuckets = {
      0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5};

  // One answered DynamoDB API request: its operation (as in X-Amz-Target, after the dot),
  // its error type ("" when it succeeded) and the time it took. Thread-safe. REQUIRES: both
  // names live as long as the process (the dispatch table's and the error table's): they are
  // kept as views, so that counting allocates nothing after an outcome's first time.
  void CountRequest(std::string_view operation, std::string_view error_type, double seconds);

  // What one request consumed, added to its tables' and indexes' totals. Thread-safe.
  void CountConsumption(const Consumption& consumption);
  // Forgets a dropped table's totals. Thread-safe.
  void ForgetTable(uint64_t table_id);

  // One SearchVectors answered with results. Thread-safe.
  void CountVectorSearch() { vector_searches_.fetch_add(1, std::memory_order_relaxed); }

  // DynamoDB API requests answered so far.
  uint64_t RequestsAnswered() const;

  // Where the number of open connections comes from (the HTTP server's count).
  void SetOpenConnections(std::function<int()> source) { open_connections_ = std::move(source); }

  // The whole page: requests, latencies, connections, tables (with what each table and index
  // consumed), storage, the process.
  std::string Render(Service& service) const;

 private:
  struct Latency {
    std::array<uint64_t, kLatencyBuckets.size()> buckets{};  // not cumulative
    uint64_t count = 0;
    double sum = 0;
  };

  // The tables' families: items, sizes and what each table and index consumed.
  void RenderTables(std::string& out, Service& service) const;
  // The running index backfills: items done and items to do.
  static void RenderBackfills(std::string& out, Service& service,
                              const std::vector<std::shared_ptr<const TableDef>>& tables);

  mutable std::mutex mutex_;
  std::map<std::pair<std::string_view, std::string_view>, uint64_t> requests_;  // op, outcome
  std::map<std::string_view, Latency> latencies_;                               // by operation
  // Totals of the tables and indexes that exist; those of dropped ones go at the next render.
  mutable std::map<ConsumedSite, ConsumedFigures> consumed_;
  std::function<int()> open_connections_;
  std::atomic<uint64_t> vector_searches_{0};
};

}  // namespace ddbd::server
