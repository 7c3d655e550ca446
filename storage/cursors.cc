// Database: reads — single items and index entries, and ordered cursors over a partition
// (Query) or a range of partition hashes (Scan, parallel-scan segments) of a table or an
// index. Typed start keys become exclusive iterator bounds here.
#include <algorithm>

#include "storage/internal/database_impl.h"
#include "storage/internal/item_codec.h"
#include "storage/internal/key_codec.h"

namespace ddbd::storage {
namespace {

class RocksItemCursor : public ItemCursor {
 public:
  RocksItemCursor(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* family, std::string lower,
                  std::string upper, bool forward)
      : lower_(std::move(lower)), upper_(std::move(upper)), forward_(forward) {
    rocksdb::ReadOptions options;
    // The items family's prefix filter is used when both bounds lie in one partition hash
    // (a Query); other reads (Scan segments) seek in total order.
    options.auto_prefix_mode = true;
    lower_slice_ = rocksdb::Slice(lower_);
    upper_slice_ = rocksdb::Slice(upper_);
    options.iterate_lower_bound = &lower_slice_;
    if (!upper_.empty()) options.iterate_upper_bound = &upper_slice_;
    iterator_.reset(db->NewIterator(options, family));
    if (forward_) {
      iterator_->Seek(lower_slice_);
    } else if (upper_.empty()) {
      iterator_->SeekToLast();
    } else {
      iterator_->SeekForPrev(upper_slice_);
      // SeekForPrev lands on the bound itself when it exists; the bound is exclusive.
      if (iterator_->Valid() && iterator_->key() == upper_slice_) iterator_->Prev();
    }
  }
  bool Valid() const override { return iterator_->Valid(); }
  void Next() override { forward_ ? iterator_->Next() : iterator_->Prev(); }
  Result<Item> item() const override { return DecodeItem(*stored_encoding()); }
  std::optional<std::string_view> stored_encoding() const override {
    return std::string_view(iterator_->value().data(), iterator_->value().size());
  }
  Status status() const override {
    rocksdb::Status s = iterator_->status();
    if (!s.ok()) return StorageError(s);
    return OkStatus();
  }
  // The current entry's storage key. REQUIRES: Valid().
  std::string_view key() const { return {iterator_->key().data(), iterator_->key().size()}; }

 private:
  std::string lower_, upper_;
  rocksdb::Slice lower_slice_, upper_slice_;
  bool forward_;
  std::unique_ptr<rocksdb::Iterator> iterator_;
};

// Index entries merged with an overlay: both are walked in key order (or reverse), and where
// the overlay has a key it decides — its entry is shown, or nothing when it holds nullopt.
class OverlaidCursor : public ItemCursor {
 public:
  OverlaidCursor(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* family, std::string lower,
                 std::string upper, bool forward, const EntryOverlay& overlay)
      : stored_(db, family, lower, upper, forward), forward_(forward) {
    auto begin = overlay.entries.lower_bound(lower);
    auto end = upper.empty() ? overlay.entries.end() : overlay.entries.lower_bound(upper);
    for (auto it = begin; it != end; ++it) overlay_.push_back(&*it);
    if (!forward_) std::reverse(overlay_.begin(), overlay_.end());
    Settle();
  }
  bool Valid() const override { return from_overlay_ || stored_.Valid(); }
  void Next() override {
    if (from_overlay_) {
      // The stored entry at the same key (if any) is replaced by the overlay's.
      if (stored_.Valid() && stored_.key() == overlay_[next_overlay_]->first) stored_.Next();
      ++next_overlay_;
    } else {
      stored_.Next();
    }
    Settle();
  }
  Result<Item> item() const override {
    if (from_overlay_) return *overlay_[next_overlay_]->second;
    return stored_.item();
  }
  std::optional<std::string_view> stored_encoding() const override {
    if (from_overlay_) return std::nullopt;
    return stored_.stored_encoding();
  }
  Status status() const override { return stored_.status(); }

 private:
  // Positions on the next visible entry: the overlay's when its key comes first (or equals
  // the stored one), skipping the keys it hides.
  void Settle() {
    for (;;) {
      from_overlay_ = false;
      if (next_overlay_ == overlay_.size()) return;
      const std::string& key = overlay_[next_overlay_]->first;
      if (stored_.Valid()) {
        const std::string_view stored_key = stored_.key();
        const bool stored_first = forward_ ? stored_key < key : stored_key > key;
        if (stored_first) return;
      }
      if (overlay_[next_overlay_]->second) {
        from_overlay_ = true;
        return;
      }
      if (stored_.Valid() && stored_.key() == key) stored_.Next();
      ++next_overlay_;
    }
  }

  RocksItemCursor stored_;
  bool forward_;
  std::vector<const std::pair<const std::string, std::optional<Item>>*> overlay_;
  size_t next_overlay_ = 0;
  bool from_overlay_ = false;
};

std::unique_ptr<ItemCursor> NewIndexCursor(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* family,
                                           std::string lower, std::string upper, bool forward,
                                           const EntryOverlay* overlay) {
  if (!overlay || overlay->entries.empty()) {
    return NewCursor(db, family, std::move(lower), std::move(upper), forward);
  }
  return std::make_unique<OverlaidCursor>(db, family, std::move(lower), std::move(upper), forward,
                                          *overlay);
}

// The storage key a start key names: an item's, or an index entry's.
std::string ItemKeyOf(uint64_t table_id, const StartKey& start) {
  return ItemKey(table_id, start.table_key);
}
std::string EntryKeyOf(uint64_t index_id, const StartKey& start) {
  return IndexEntryKey(index_id, start.index_partition, start.index_sort, start.table_key);
}

// Iterator bounds for a partition (`prefix` = PartitionPrefix) narrowed by a sort-key range.
// Exclusive bounds use the successor of a value's encoding, which lies above every key that
// extends it (index entries carry the table key after the index sort key).
std::pair<std::string, std::string> PartitionBounds(const std::string& prefix,
                                                    const SortKeyRange& range, bool forward,
                                                    const std::optional<std::string>& start) {
  std::string lower = prefix;
  std::string upper = PrefixSuccessor(prefix);
  if (range.lower) {
    lower = prefix;
    EncodeKeyValue(range.lower->value, lower);
    if (!range.lower->inclusive) lower = PrefixSuccessor(lower);
  }
  if (range.upper) {
    upper = prefix;
    EncodeKeyValue(range.upper->value, upper);
    if (range.upper->inclusive) upper = PrefixSuccessor(upper);
  }
  if (range.prefix) {
    // The escaped bytes of a prefix, without the terminator, begin every encoding of a value
    // that starts with it.
    std::string begins = prefix + EncodeBytesPrefix(*range.prefix);
    lower = std::max(lower, begins);
    std::string end = PrefixSuccessor(begins);
    if (!end.empty()) upper = std::min(upper, end);
  }
  if (start) {
    if (forward) {
      lower = std::max(lower, *start + '\0');
    } else {
      upper = std::min(upper, *start);
    }
  }
  return {std::move(lower), std::move(upper)};
}

std::pair<std::string, std::string> HashBounds(uint64_t id, uint64_t hash_begin, uint64_t hash_end,
                                               const std::optional<std::string>& start) {
  std::string lower = HashPrefix(id, hash_begin);
  if (start && *start + '\0' > lower) lower = *start + '\0';
  std::string upper = hash_end == UINT64_MAX ? TablePrefix(id + 1) : HashPrefix(id, hash_end + 1);
  return {std::move(lower), std::move(upper)};
}

template <typename Encode>
std::optional<std::string> Encoded(const std::optional<StartKey>& start, Encode encode) {
  if (!start) return std::nullopt;
  return encode(*start);
}

// Reads the record at `key` into `value` (pinned, not copied); false when there is none.
Result<bool> Fetch(Database::Impl& impl, rocksdb::ColumnFamilyHandle* family,
                   const std::string& key, rocksdb::PinnableSlice& value) {
  rocksdb::Status status = impl.db->Get(rocksdb::ReadOptions(), family, key, &value);
  if (status.IsNotFound()) return false;
  if (!status.ok()) return StorageError(status);
  return true;
}

Result<std::optional<std::string>> LookupStored(Database::Impl& impl,
                                                rocksdb::ColumnFamilyHandle* family,
                                                const std::string& key) {
  rocksdb::PinnableSlice value;
  DDBD_ASSIGN_OR_RETURN(bool found, Fetch(impl, family, key, value));
  if (!found) return std::optional<std::string>();
  return std::optional<std::string>(value.ToString());
}

// Decoded from the pinned record: no copy of it.
Result<std::optional<Item>> Lookup(Database::Impl& impl, rocksdb::ColumnFamilyHandle* family,
                                   const std::string& key) {
  rocksdb::PinnableSlice value;
  DDBD_ASSIGN_OR_RETURN(bool found, Fetch(impl, family, key, value));
  if (!found) return std::optional<Item>();
  DDBD_ASSIGN_OR_RETURN(Item item, DecodeItem(std::string_view(value.data(), value.size())));
  return std::optional<Item>(std::move(item));
}

}  // namespace

std::unique_ptr<ItemCursor> NewCursor(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* family,
                                      std::string lower, std::string upper, bool forward) {
  return std::make_unique<RocksItemCursor>(db, family, std::move(lower), std::move(upper), forward);
}

uint64_t Database::PartitionHash(std::span<const AttributeValue> partition) {
  std::string encoded;
  for (const AttributeValue& value : partition) EncodeKeyValue(value, encoded);
  return storage::PartitionHash(encoded);
}

Result<std::optional<Item>> Database::GetItem(const TableDef& table, const PrimaryKey& key) {
  return Lookup(*impl_, impl_->items, ItemKey(table.id, key));
}

Result<std::optional<std::string>> Database::GetStoredItem(const TableDef& table,
                                                           const PrimaryKey& key) {
  return LookupStored(*impl_, impl_->items, ItemKey(table.id, key));
}

Result<Item> DecodeStoredItem(std::string_view encoding) { return DecodeItem(encoding); }

Result<std::optional<Item>> Database::GetIndexEntry(uint64_t index_id,
                                                    const std::vector<AttributeValue>& partition,
                                                    const std::vector<AttributeValue>& sort,
                                                    const PrimaryKey& table_key) {
  return Lookup(*impl_, impl_->indexes, IndexEntryKey(index_id, partition, sort, table_key));
}

std::unique_ptr<ItemCursor> Database::ScanPartition(const TableDef& table,
                                                    const AttributeValue& partition,
                                                    const SortKeyRange& range, bool forward,
                                                    const std::optional<StartKey>& start) {
  auto encoded = Encoded(start, [&](const StartKey& s) { return ItemKeyOf(table.id, s); });
  auto [lower, upper] =
      PartitionBounds(PartitionPrefix(table.id, partition), range, forward, encoded);
  return NewCursor(impl_->db.get(), impl_->items, std::move(lower), std::move(upper), forward);
}

std::unique_ptr<ItemCursor> Database::ScanHashRange(const TableDef& table, uint64_t hash_begin,
                                                    uint64_t hash_end,
                                                    const std::optional<StartKey>& start) {
  auto encoded = Encoded(start, [&](const StartKey& s) { return ItemKeyOf(table.id, s); });
  auto [lower, upper] = HashBounds(table.id, hash_begin, hash_end, encoded);
  return NewCursor(impl_->db.get(), impl_->items, std::move(lower), std::move(upper), true);
}

std::unique_ptr<ItemCursor> Database::ScanIndexPartition(
    uint64_t index_id, const std::vector<AttributeValue>& partition,
    const std::vector<AttributeValue>& sort_prefix, const SortKeyRange& range, bool forward,
    const std::optional<StartKey>& start, const EntryOverlay* overlay) {
  auto encoded = Encoded(start, [&](const StartKey& s) { return EntryKeyOf(index_id, s); });
  auto [lower, upper] = PartitionBounds(IndexPartitionPrefix(index_id, partition, sort_prefix),
                                        range, forward, encoded);
  return NewIndexCursor(impl_->db.get(), impl_->indexes, std::move(lower), std::move(upper),
                        forward, overlay);
}

std::unique_ptr<ItemCursor> Database::ScanIndexHashRange(uint64_t index_id, uint64_t hash_begin,
                                                         uint64_t hash_end,
                                                         const std::optional<StartKey>& start,
                                                         const EntryOverlay* overlay) {
  auto encoded = Encoded(start, [&](const StartKey& s) { return EntryKeyOf(index_id, s); });
  auto [lower, upper] = HashBounds(index_id, hash_begin, hash_end, encoded);
  return NewIndexCursor(impl_->db.get(), impl_->indexes, std::move(lower), std::move(upper), true,
                        overlay);
}

std::string Database::IndexEntryKeyOf(const IndexEntry& entry) {
  return IndexEntryKey(entry.index->id, entry.partition, entry.sort, entry.table_key);
}

Status Database::ForEachIndexEntry(uint64_t index_id, const std::function<void(Item)>& visit) {
  auto cursor = NewCursor(impl_->db.get(), impl_->indexes, TablePrefix(index_id),
                          TablePrefix(index_id + 1), true);
  for (; cursor->Valid(); cursor->Next()) {
    DDBD_ASSIGN_OR_RETURN(Item entry, cursor->item());
    visit(std::move(entry));
  }
  return cursor->status();
}

}  // namespace ddbd::storage
