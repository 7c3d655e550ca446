// GsiLag (--gsi-lag-ms N): global secondary indexes that are eventually consistent, as in
// DynamoDB. A write updates its GSI entries in its own batch, as always (so they are durable
// and counted at once), and this write part remembers, for each entry it changed, what a
// reader should still see until N ms (by the service clock) after the commit: the entry the
// item had before at its old key, and nothing at its new one. Index reads (Query and Scan
// of a GSI) pass the Overlay of the moment to storage, which merges it into the stored
// entries in key order — so an item written just now is missing from the index, one updated
// just now is found as it was (at its old index key), one deleted just now is still found.
// Several writes to one item within the window become visible one by one, in commit order.
// Tables and LSIs stay strongly consistent.
//
// What is remembered lives in memory and is forgotten once visible (and at a restart, when
// every entry is visible at once): at each use of an index, and for every index every
// kSweepEvery recorded changes (so an index nobody reads again — its table dropped — lets go
// too). At most kMaxPendingPerIndex changes wait per index; past that the oldest becomes
// visible early, so a frozen clock cannot grow memory without bound.
//
// Entry points: GsiLag (registered with storage as a write part), Overlay.
// Thread-safety: thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "model/clock.h"
#include "model/primary_key.h"
#include "storage/catalog.h"
#include "storage/database.h"

namespace ddbd::index {

class GsiLag : public storage::WritePart {
 public:
  static constexpr size_t kMaxPendingPerIndex = 100'000;
  static constexpr size_t kSweepEvery = 4096;

  GsiLag(const storage::Catalog& catalog, const Clock& clock, int64_t lag_ms)
      : catalog_(catalog), clock_(clock), lag_ms_(lag_ms) {}

  bool NeedsOldItem(const storage::ItemWrite& write) const override;
  Status Contribute(const storage::ItemChange& change,
                    storage::WriteBatchBuilder& batch) const override;

  // The entries of GSI `index_id` a reader sees differently from storage now; nullopt when
  // there are none.
  std::optional<storage::EntryOverlay> Overlay(uint64_t index_id) const;
  // Changes remembered, over every index (tests of the memory bound).
  size_t PendingCount() const;

 private:
  // One committed change of one item's entry in one GSI.
  struct Change {
    int64_t visible_ms = 0;
    PrimaryKey table_key;                   // the item's
    std::optional<std::string> before_key;  // the entry's storage key before the write
    std::optional<Item> before;             // and what it showed
    std::optional<std::string> after_key;   // the entry's storage key after it
  };
  void Record(uint64_t index_id, Change change) const;

  const storage::Catalog& catalog_;
  const Clock& clock_;
  const int64_t lag_ms_;
  mutable std::mutex mutex_;
  mutable std::unordered_map<uint64_t, std::deque<Change>> pending_;  // by index id
  mutable size_t recorded_since_sweep_ = 0;
};

}  // namespace ddbd::index
