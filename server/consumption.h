// Consumption: what one request consumed, table by table and index by index — the capacity
// units DynamoDB meters for it and the items and bytes it read and wrote. Operations record
// into their OpContext's (ops/throttling.h: ChargeRead, MeterWrite, MeterVectorSearch); the
// exchange adds it to /metrics and to the request log's line.
#pragma once

#include <boost/container/small_vector.hpp>
#include <cstdint>
#include <utility>

namespace ddbd::server {

struct ConsumedFigures {
  double read_units = 0;
  double write_units = 0;
  uint64_t items_read = 0;     // items that were there and were read (a Query's ScannedCount)
  uint64_t bytes_read = 0;     // their sizes, by DynamoDB's measure
  uint64_t items_written = 0;  // puts, updates and deletes applied (not condition checks)
  uint64_t bytes_written = 0;  // the sizes of the items written (a delete writes none)

  void Add(const ConsumedFigures& other) {
    read_units += other.read_units;
    write_units += other.write_units;
    items_read += other.items_read;
    bytes_read += other.bytes_read;
    items_written += other.items_written;
    bytes_written += other.bytes_written;
  }
};

// Where figures were consumed: a table (index_id 0) or one of its indexes. Index ids come from
// the table ids' sequence, so a pair names one table or index for the database's lifetime.
struct ConsumedSite {
  uint64_t table_id = 0;
  uint64_t index_id = 0;
  auto operator<=>(const ConsumedSite&) const = default;
};

class Consumption {
 public:
  // The figures of a site, empty until something is recorded.
  ConsumedFigures& At(uint64_t table_id, uint64_t index_id = 0) {
    for (auto& [site, figures] : sites_) {
      if (site.table_id == table_id && site.index_id == index_id) return figures;
    }
    return sites_.emplace_back(ConsumedSite{table_id, index_id}, ConsumedFigures{}).second;
  }

  // Units over every site.
  double ReadUnits() const { return Sum(&ConsumedFigures::read_units); }
  double WriteUnits() const { return Sum(&ConsumedFigures::write_units); }

  // Each site consumed, in the order first recorded. A request touches few (a linear list),
  // most one or two (kept inline: no allocation).
  using Sites = boost::container::small_vector<std::pair<ConsumedSite, ConsumedFigures>, 2>;
  const Sites& sites() const { return sites_; }

 private:
  double Sum(double ConsumedFigures::*units) const {
    double sum = 0;
    for (const auto& entry : sites_) sum += entry.second.*units;
    return sum;
  }

  Sites sites_;
};

}  // namespace ddbd::server
