// EntriesPart: keeps every secondary and vector index of a table in step with its items,
// inside each item's write batch (storage/write.h). For every write it derives the entries of
// the old and the new item from the table's current definition — so a write racing with
// the creation of an index still maintains it — deletes those that went, writes those that
// changed, keeps the index statistics and LSI item-collection sizes, and reports committed
// vector-entry changes to the in-memory vector indexes.
//
// Entry points: EntriesPart (registered once with storage), BackfillEntries.
// Thread-safety: Contribute may run concurrently for different items.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "storage/catalog.h"
#include "storage/database.h"
#include "vector/entry_change.h"

namespace ddbd::index {

class EntriesPart : public storage::WritePart {
 public:
  explicit EntriesPart(const storage::Catalog& catalog) : catalog_(catalog) {}

  // Who keeps the in-memory vector indexes: called with each committed change of a vector
  // entry, under the item's lock. REQUIRES: set once at start-up, before any write.
  void SetVectorListener(std::function<void(vector::EntryChange)> listener) {
    vector_listener_ = std::move(listener);
  }

  bool NeedsOldItem(const storage::ItemWrite& write) const override;
  Status Contribute(const storage::ItemChange& change,
                    storage::WriteBatchBuilder& batch) const override;

  // The entry of index `index_id` for one stored item, written if it is not stored yet (a
  // backfill; see Database::BackfillSlice). Counts each entry once.
  Status BackfillEntry(const TableDef& table, uint64_t index_id, const Item& item,
                       std::string_view encoding, storage::WriteBatchBuilder& batch) const;

 private:
  // The table's current definition when it has indexes, else nullptr.
  std::shared_ptr<const TableDef> IndexedTable(uint64_t table_id) const;
  void ReportVectorChange(const std::shared_ptr<const TableDef>& table,
                          const storage::IndexEntry& entry, std::optional<Item> stored,
                          storage::WriteBatchBuilder& batch) const;

  const storage::Catalog& catalog_;
  std::function<void(vector::EntryChange)> vector_listener_;
};

}  // namespace ddbd::index
