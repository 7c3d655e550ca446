#include "index/gsi_lag.h"

#include <unordered_set>

#include "index/index_entries.h"

namespace ddbd::index {
namespace {

// The GSIs a reader can query: active, not being built.
bool Lags(const IndexDef& index) {
  return !index.local && !index.IsVector() && !index.backfilling &&
         index.status != IndexStatus::kDeleting;
}

}  // namespace

bool GsiLag::NeedsOldItem(const storage::ItemWrite& write) const {
  auto table = catalog_.FindById(write.table->id);
  if (!table) return false;
  for (const IndexDef& index : table->indexes) {
    if (Lags(index)) return true;
  }
  return false;
}

Status GsiLag::Contribute(const storage::ItemChange& change,
                          storage::WriteBatchBuilder& batch) const {
  if (change.Unchanged()) return OkStatus();
  auto table = catalog_.FindById(change.write.table->id);
  if (!table) return OkStatus();
  const storage::WriteOutcome& outcome = change.outcome;
  for (const IndexDef& index : table->indexes) {
    if (!Lags(index)) continue;
    std::optional<storage::IndexEntry> before, after;
    if (outcome.old_item) before = EntryFor(*table, index, *outcome.old_item);
    if (outcome.new_item) after = EntryFor(*table, index, *outcome.new_item, false);
    if (!before && !after) continue;
    if (before && after && before->partition == after->partition && before->sort == after->sort &&
        SameProjection(*table, index, *outcome.old_item, *outcome.new_item)) {
      continue;
    }
    Change pending;
    pending.table_key = (before ? before : after)->table_key;
    if (before) {
      pending.before_key = storage::Database::IndexEntryKeyOf(*before);
      // An entry of an ALL-projected index is the item itself (EntryFor copies nothing).
      pending.before = index.projection == ProjectionType::kAll ? *outcome.old_item
                                                                : std::move(before->projected);
    }
    if (after) pending.after_key = storage::Database::IndexEntryKeyOf(*after);
    // Once committed, under the item's lock: an item's changes are recorded in commit order.
    batch.AfterCommit([this, index_id = index.id, pending = std::move(pending)]() mutable {
      pending.visible_ms = clock_.NowMs() + lag_ms_;
      Record(index_id, std::move(pending));
    });
  }
  return OkStatus();
}

void GsiLag::Record(uint64_t index_id, Change change) const {
  std::lock_guard lock(mutex_);
  std::deque<Change>& queue = pending_[index_id];
  const int64_t now = clock_.NowMs();
  while (!queue.empty() &&
         (queue.front().visible_ms <= now || queue.size() >= kMaxPendingPerIndex)) {
    queue.pop_front();
  }
  queue.push_back(std::move(change));
  if (++recorded_since_sweep_ < kSweepEvery) return;
  recorded_since_sweep_ = 0;
  for (auto it = pending_.begin(); it != pending_.end();) {
    std::deque<Change>& other = it->second;
    while (!other.empty() && other.front().visible_ms <= now) other.pop_front();
    it = other.empty() ? pending_.erase(it) : std::next(it);
  }
}

size_t GsiLag::PendingCount() const {
  std::lock_guard lock(mutex_);
  size_t count = 0;
  for (const auto& [index_id, queue] : pending_) count += queue.size();
  return count;
}

std::optional<storage::EntryOverlay> GsiLag::Overlay(uint64_t index_id) const {
  std::lock_guard lock(mutex_);
  auto found = pending_.find(index_id);
  if (found == pending_.end()) return std::nullopt;
  std::deque<Change>& queue = found->second;
  const int64_t now = clock_.NowMs();
  while (!queue.empty() && queue.front().visible_ms <= now) queue.pop_front();
  if (queue.empty()) {
    pending_.erase(found);
    return std::nullopt;
  }
  // What a reader sees of an item is what it was before its first change not yet visible:
  // every key a pending change moved the entry to is hidden, and the key it had before that
  // first change shows the entry it had (which wins where the two keys are one).
  storage::EntryOverlay overlay;
  for (const Change& change : queue) {
    if (change.visible_ms > now && change.after_key) overlay.entries[*change.after_key];
  }
  std::unordered_set<PrimaryKey, PrimaryKeyHash> shown;
  for (const Change& change : queue) {
    if (change.visible_ms <= now || !shown.insert(change.table_key).second) continue;
    if (change.before_key) overlay.entries[*change.before_key] = change.before;
  }
  return overlay;
}

}  // namespace ddbd::index
