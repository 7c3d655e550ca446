// Index backfills in slices on the background executor.
#include "index/backfill.h"

#include <algorithm>

#include "model/log.h"

namespace ddbd::index {
namespace {

// Items per slice: long enough to amortise the scan's set-up, short enough that other
// background work (and shutdown) is never kept waiting long.
constexpr size_t kItemsPerSlice = 1000;

// Applies `change` to index `index_id` in the table's current definition (it may have changed
// since the backfill began; it may also be gone).
void ChangeIndex(storage::Catalog& catalog, uint64_t table_id, uint64_t index_id,
                 const std::function<void(IndexDef&)>& change) {
  auto changed = catalog.Modify(table_id, [&](TableDef& table) {
    for (auto& index : table.indexes) {
      if (index.id == index_id) change(index);
    }
    return OkStatus();
  });
  changed.IgnoreError();  // the table may have been dropped meanwhile
}

}  // namespace

struct Backfills::Job {
  uint64_t table_id;
  uint64_t index_id;
  std::chrono::steady_clock::time_point started;
  std::chrono::milliseconds minimum_time{0};  // before the index may be ACTIVE
  std::optional<PrimaryKey> after;            // the last item done
};

void Backfills::Start(uint64_t table_id, uint64_t index_id) {
  auto job = std::make_shared<Job>(Job{table_id, index_id, std::chrono::steady_clock::now()});
  auto table = catalog_.FindById(table_id);
  const IndexDef* index = table ? table->FindIndexById(index_id) : nullptr;
  if (!index) return;
  const bool is_vector = index->IsVector();
  job->minimum_time =
      std::max(is_vector ? timing_.vector_build_minimum : std::chrono::milliseconds(0),
               timing_.transient_status_delay);
  if (is_vector && !index->backfilling) {
    // The allocation phase DynamoDB goes through before a vector index backfills.
    executor_.RunAfter(timing_.vector_allocation, [this, job] {
      ChangeIndex(catalog_, job->table_id, job->index_id,
                  [](IndexDef& i) { i.backfilling = true; });
      RunSlice(job);
    });
    return;
  }
  executor_.Run([this, job] { RunSlice(job); });
}

void Backfills::RunSlice(std::shared_ptr<Job> job) {
  if (executor_.stopping()) return;  // resumed at the next start: the index is still CREATING
  auto table = catalog_.FindById(job->table_id);
  if (!table || !table->FindIndexById(job->index_id)) return;  // dropped meanwhile
  Result<std::optional<PrimaryKey>> done = db_.BackfillSlice(
      *table, job->after, kItemsPerSlice,
      [&](const Item& item, std::string_view encoding, storage::WriteBatchBuilder& batch) {
        return entries_.BackfillEntry(*table, job->index_id, item, encoding, batch);
      });
  if (!done.ok()) {
    log::Error("backfill of index %llu failed: %s", static_cast<unsigned long long>(job->index_id),
               done.error().message().c_str());
    return;
  }
  if (*done) {
    job->after = std::move(*done);
    executor_.Run([this, job] { RunSlice(job); });
    return;
  }
  Finish(job);
}

void Backfills::Finish(std::shared_ptr<Job> job) {
  // Not ACTIVE before the vector index's minimum build time, nor before the transient delay
  // of -delayTransientStatuses.
  const auto due = job->started + job->minimum_time;
  const auto now = std::chrono::steady_clock::now();
  auto activate = [this, job] {
    ChangeIndex(catalog_, job->table_id, job->index_id, [](IndexDef& i) {
      i.status = IndexStatus::kActive;
      i.backfilling = false;
    });
  };
  if (due <= now) return activate();
  executor_.RunAfter(due - now, activate);
}

}  // namespace ddbd::index
