// Index entries in each item's write batch.
#include "index/entries_part.h"

#include <algorithm>

#include "index/index_entries.h"

namespace ddbd::index {
namespace {

bool SameEntryKey(const storage::IndexEntry& a, const storage::IndexEntry& b) {
  return a.index == b.index && a.partition == b.partition && a.sort == b.sort &&
         a.table_key == b.table_key;
}

bool HasLocalIndex(const TableDef& table) {
  return std::any_of(table.indexes.begin(), table.indexes.end(),
                     [](const IndexDef& index) { return index.local; });
}

// The entries of every live index of `table` for `item`.
std::vector<storage::IndexEntry> EntriesOf(const TableDef& table, const AttributeMap& item,
                                           bool with_projection) {
  std::vector<storage::IndexEntry> entries;
  for (const auto& index : table.indexes) {
    if (index.status == IndexStatus::kDeleting) continue;  // about to be dropped
    if (auto entry = EntryFor(table, index, item, with_projection)) {
      entries.push_back(std::move(*entry));
    }
  }
  return entries;
}

}  // namespace

std::shared_ptr<const TableDef> EntriesPart::IndexedTable(uint64_t table_id) const {
  auto table = catalog_.FindById(table_id);
  if (!table || table->indexes.empty()) return nullptr;
  return table;
}

bool EntriesPart::NeedsOldItem(const storage::ItemWrite& write) const {
  return IndexedTable(write.table->id) != nullptr;
}

void EntriesPart::ReportVectorChange(const std::shared_ptr<const TableDef>& table,
                                     const storage::IndexEntry& entry, std::optional<Item> stored,
                                     storage::WriteBatchBuilder& batch) const {
  if (!vector_listener_ || !entry.index->IsVector()) return;
  batch.AfterCommit([this, change = vector::EntryChange{table, entry.index, entry.table_key,
                                                        std::move(stored)}]() mutable {
    vector_listener_(std::move(change));
  });
}

Status EntriesPart::Contribute(const storage::ItemChange& change,
                               storage::WriteBatchBuilder& batch) const {
  const std::shared_ptr<const TableDef> table = IndexedTable(change.write.table->id);
  if (!table) return OkStatus();
  const storage::WriteOutcome& outcome = change.outcome;
  int64_t local_delta = 0;  // the change in size of the item's LSI entries
  // An item written again unchanged changes no entry (nor does it on DynamoDB). Entries the
  // old item had and the new one no longer has are deleted; the new item's entries are
  // written unless an identical entry (same key, same projected attributes) is stored. An
  // index being backfilled may not hold the old item's entry yet, so there the entry is
  // looked up rather than assumed, lest statistics count it away.
  if (!change.Unchanged()) {
    std::vector<storage::IndexEntry> old_entries;
    if (outcome.old_item) {
      for (auto& entry : EntriesOf(*table, *outcome.old_item, /*with_projection=*/false)) {
        if (entry.index->backfilling) {
          DDBD_ASSIGN_OR_RETURN(bool stored, batch.IndexEntryStored(entry));
          if (!stored) continue;
        }
        old_entries.push_back(std::move(entry));
      }
    }
    if (outcome.new_item) {
      for (auto& entry : EntriesOf(*table, *outcome.new_item, /*with_projection=*/true)) {
        auto old = std::find_if(old_entries.begin(), old_entries.end(),
                                [&](const auto& o) { return SameEntryKey(o, entry); });
        if (old != old_entries.end() &&
            SameProjection(*table, *entry.index, *outcome.old_item, *outcome.new_item)) {
          old_entries.erase(old);  // the stored entry is already this one
          continue;
        }
        const int64_t old_size =
            old == old_entries.end() ? 0 : static_cast<int64_t>(old->projected_size);
        const int64_t size = static_cast<int64_t>(entry.projected_size);
        batch.PutIndexEntry(entry, change.new_encoding);
        batch.AddStatistics(entry.index->id,
                            storage::TableStats{old == old_entries.end() ? 1 : 0, size - old_size});
        if (entry.index->local) local_delta += size - old_size;
        if (old != old_entries.end()) old_entries.erase(old);
        ReportVectorChange(table, entry, std::move(entry.projected), batch);
      }
    }
    for (const auto& entry : old_entries) {
      batch.DeleteIndexEntry(entry);
      const int64_t size = static_cast<int64_t>(entry.projected_size);
      batch.AddStatistics(entry.index->id, storage::TableStats{-1, -size});
      if (entry.index->local) local_delta -= size;
      ReportVectorChange(table, entry, std::nullopt, batch);
    }
  }
  if (HasLocalIndex(*table)) {
    const int64_t item_delta =
        static_cast<int64_t>(outcome.new_size) - static_cast<int64_t>(outcome.old_size);
    DDBD_RETURN_IF_ERROR(batch.AddToItemCollection(item_delta + local_delta));
  }
  return OkStatus();
}

Status EntriesPart::BackfillEntry(const TableDef& table, uint64_t index_id, const Item& item,
                                  std::string_view encoding,
                                  storage::WriteBatchBuilder& batch) const {
  const std::shared_ptr<const TableDef> current = IndexedTable(table.id);
  if (!current) return OkStatus();  // the table was dropped
  const IndexDef* index = current->FindIndexById(index_id);
  if (!index) return OkStatus();  // the index was dropped
  std::optional<storage::IndexEntry> entry = EntryFor(*current, *index, item, true);
  if (!entry) return OkStatus();
  // A concurrent write may already have added this entry; count it once.
  DDBD_ASSIGN_OR_RETURN(bool stored, batch.IndexEntryStored(*entry));
  if (stored) return OkStatus();
  batch.PutIndexEntry(*entry, encoding);
  batch.AddStatistics(index_id,
                      storage::TableStats{1, static_cast<int64_t>(entry->projected_size)});
  ReportVectorChange(current, *entry, std::move(entry->projected), batch);
  return OkStatus();
}

}  // namespace ddbd::index
