// Database: the write path. WriteItems runs in named phases — lock, read, compute, contribute,
// verdict, commit, notify — and every subsystem that follows writes is a registered part
// (storage/write.h), so a new feature adds a part, not a branch here. BackfillSlice lets a
// part catch up with the items stored before it was switched on (a new index, Time to Live
// enabled), under the same locks.
#include <algorithm>

#include "storage/internal/batch_builder.h"
#include "storage/internal/item_codec.h"
#include "storage/internal/key_codec.h"

namespace ddbd::storage {
namespace {

// One write in flight: its storage key and the stored bytes of its old item.
struct Pending {
  std::string key;
  bool skipped = false;  // a failure of compute that skips only this write
  rocksdb::PinnableSlice stored;
  std::string encoded;  // the new item's encoding
};

bool AnyPartNeedsOldItem(const std::vector<const WritePart*>& parts, const ItemWrite& write) {
  return std::any_of(parts.begin(), parts.end(),
                     [&](const WritePart* part) { return part->NeedsOldItem(write); });
}

// Phase "read": the old image — its size always, the item itself when someone needs it.
Status ReadOld(Database::Impl& impl, const ItemWrite& write, Pending& pending,
               WriteOutcome& outcome) {
  rocksdb::Status status =
      impl.db->Get(rocksdb::ReadOptions(), impl.items, pending.key, &pending.stored);
  if (status.IsNotFound()) return OkStatus();
  if (!status.ok()) return StorageError(status);
  const std::string_view bytes(pending.stored.data(), pending.stored.size());
  outcome.existed = true;
  DDBD_ASSIGN_OR_RETURN(outcome.old_size, StoredItemSize(bytes));
  if (write.needs_old_item || AnyPartNeedsOldItem(impl.parts, write)) {
    DDBD_ASSIGN_OR_RETURN(Item old, DecodeItem(bytes));
    outcome.old_item = std::move(old);
  }
  return OkStatus();
}

// Phase "compute": the write decides, as a value.
void Compute(const ItemWrite& write, Pending& pending, WriteOutcome& outcome) {
  Mutation mutation = write.compute(outcome.old_item);
  if (mutation.failure) {
    pending.skipped = write.failure_skips_write;
    outcome.failure = std::move(mutation.failure);
    outcome.new_item = outcome.old_item;  // a failed write leaves its item as it is
    return;
  }
  if (write.check_only) {
    outcome.new_item = outcome.old_item;
    outcome.new_size = outcome.old_size;
    return;
  }
  outcome.new_item = std::move(mutation.item);
  if (outcome.new_item) {
    outcome.new_size = ItemSize(*outcome.new_item);
    pending.encoded = EncodeItem(*outcome.new_item, outcome.new_size);
  }
}

// Phase "contribute": the item itself, its statistics, and every part's records.
Status Contribute(Database::Impl& impl, const ItemWrite& write, Pending& pending,
                  WriteOutcome& outcome, int64_t time_ms, BatchBuilder& batch) {
  if (outcome.failure || write.check_only) return OkStatus();
  if (!outcome.new_item && !outcome.existed) return OkStatus();  // absent stays absent
  batch.BeginItem(*write.table, write.key);
  if (outcome.new_item) {
    batch.PutItem(pending.key, pending.encoded);
  } else {
    batch.DeleteItem(pending.key);
  }
  batch.AddStatistics(
      write.table->id,
      TableStats{(outcome.new_item ? 1 : 0) - (outcome.existed ? 1 : 0),
                 static_cast<int64_t>(outcome.new_size) - static_cast<int64_t>(outcome.old_size)});
  const ItemChange change{write, outcome, time_ms,
                          outcome.existed
                              ? std::string_view(pending.stored.data(), pending.stored.size())
                              : std::string_view(),
                          pending.encoded};
  for (const WritePart* part : impl.parts) {
    Status contributed = part->Contribute(change, batch);
    if (contributed.ok()) continue;
    // A part's refusal (an item collection over its limit) is the write's own failure, and
    // the call cannot commit (see Verdict); anything else (storage) ends the call.
    if (contributed.error().code() == ErrorCode::kInternal) return contributed;
    outcome.failure = std::move(contributed).error();
    break;
  }
  outcome.collection_size = batch.TakeCollectionSize();
  return OkStatus();
}

// The first failure that fails the call (not one that skips only its own write).
Status FirstFailure(const std::vector<Pending>& pending,
                    const std::vector<WriteOutcome>& outcomes) {
  for (size_t i = 0; i < outcomes.size(); ++i) {
    if (outcomes[i].failure && !pending[i].skipped) return *outcomes[i].failure;
  }
  return OkStatus();
}

}  // namespace

ItemWrite Replacement(const TableDef& table, PrimaryKey key, std::optional<Item> item) {
  ItemWrite write;
  write.table = &table;
  write.key = std::move(key);
  write.compute = [item = std::move(item)](const std::optional<Item>&) {
    return Mutation::Store(item);
  };
  write.needs_old_item = false;
  return write;
}

bool ItemChange::Unchanged() const {
  if (unchanged_) return *unchanged_;
  unchanged_ = [&] {
    if (!outcome.new_item || !outcome.existed) return false;
    if (old_encoding == new_encoding) return true;
    if (outcome.old_size != outcome.new_size) return false;
    if (outcome.old_item) return *outcome.old_item == *outcome.new_item;
    Result<Item> old = DecodeItem(old_encoding);
    return old.ok() && *old == *outcome.new_item;
  }();
  return *unchanged_;
}

Result<std::vector<WriteOutcome>> Database::WriteItems(std::vector<ItemWrite> writes,
                                                       const Verdict& verdict,
                                                       const JobCheckpoint* checkpoint) {
  // Phase "lock".
  std::vector<Pending> pending(writes.size());
  std::vector<std::string> keys;
  keys.reserve(writes.size());
  for (size_t i = 0; i < writes.size(); ++i) {
    pending[i].key = ItemKey(writes[i].table->id, writes[i].key);
    keys.push_back(pending[i].key);
  }
  auto locks = impl_->LockAll(keys);
  // Phases "read", "compute", "contribute", item by item.
  BatchBuilder batch(*impl_);
  std::vector<WriteOutcome> outcomes(writes.size());
  const int64_t time_ms = impl_->clock->NowMs();
  for (size_t i = 0; i < writes.size(); ++i) {
    DDBD_RETURN_IF_ERROR(ReadOld(*impl_, writes[i], pending[i], outcomes[i]));
    Compute(writes[i], pending[i], outcomes[i]);
    DDBD_RETURN_IF_ERROR(Contribute(*impl_, writes[i], pending[i], outcomes[i], time_ms, batch));
  }
  // Phase "verdict": nothing has been written yet. Whatever the verdict, a call with a
  // failed write never commits (its records may be partial).
  if (verdict) DDBD_RETURN_IF_ERROR(verdict(outcomes));
  DDBD_RETURN_IF_ERROR(FirstFailure(pending, outcomes));
  if (checkpoint) batch.PutJob(checkpoint->kind, checkpoint->id, checkpoint->encode(outcomes));
  // Phases "commit" and "notify".
  DDBD_RETURN_IF_ERROR(batch.Commit());
  return outcomes;
}

Result<std::optional<PrimaryKey>> Database::BackfillSlice(const TableDef& table,
                                                          const std::optional<PrimaryKey>& after,
                                                          size_t max_items,
                                                          const BackfillFunction& backfill) {
  std::optional<StartKey> start;
  if (after) start = StartKey{*after, {}, {}};
  auto cursor = ScanHashRange(table, 0, UINT64_MAX, start);
  std::optional<PrimaryKey> last;
  for (size_t visited = 0; cursor->Valid() && visited < max_items; cursor->Next(), ++visited) {
    DDBD_ASSIGN_OR_RETURN(Item seen, cursor->item());
    last = KeyOf(table, seen);
    const std::string key = ItemKey(table.id, *last);
    std::lock_guard lock(impl_->LockFor(key));
    // Re-read under the lock: the item may have changed (or gone) since the scan saw it.
    rocksdb::PinnableSlice stored;
    rocksdb::Status status = impl_->db->Get(rocksdb::ReadOptions(), impl_->items, key, &stored);
    if (status.IsNotFound()) continue;
    if (!status.ok()) return StorageError(status);
    const std::string_view encoding(stored.data(), stored.size());
    DDBD_ASSIGN_OR_RETURN(Item item, DecodeItem(encoding));
    BatchBuilder batch(*impl_);
    batch.BeginItem(table, *last);
    DDBD_RETURN_IF_ERROR(backfill(item, encoding, batch));
    DDBD_RETURN_IF_ERROR(batch.Commit());
  }
  DDBD_RETURN_IF_ERROR(cursor->status());
  return last;
}

}  // namespace ddbd::storage
