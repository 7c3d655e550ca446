// Index backfills in slices on the background executor.
#include "index/backfill.h"

#include <algorithm>
#include <atomic>

#include "model/log.h"

namespace ddbd::index {
namespace {

// Items per slice: long enough to amortise the scan's set-up, short enough that other
// background work (and shutdown) is never kept waiting long.
constexpr size_t kItemsPerSlice = 1000;

// How often a long backfill says how far it is, at info level.
constexpr std::chrono::seconds kReportEvery{10};

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
  uint64_t table_id = 0;
  uint64_t index_id = 0;
  std::chrono::steady_clock::time_point started;
  std::chrono::milliseconds minimum_time{0};  // before the index may be ACTIVE
  std::optional<PrimaryKey> after;            // the last item done
  // Progress, read by Running() from other threads. Set when the first slice runs.
  bool reading = false;
  std::chrono::steady_clock::time_point reading_since;
  log::ProgressCadence cadence{kReportEvery};
  std::atomic<uint64_t> items_total{0};
  std::atomic<uint64_t> items_done{0};
};

void Backfills::Start(uint64_t table_id, uint64_t index_id) {
  auto job = std::make_shared<Job>();
  job->table_id = table_id;
  job->index_id = index_id;
  job->started = std::chrono::steady_clock::now();
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
  auto table = catalog_.FindById(job->table_id);
  // Stopping: resumed at the next start (the index is still CREATING). Dropped: nothing to do.
  if (executor_.stopping() || !table || !table->FindIndexById(job->index_id)) {
    return Forget(*job);
  }
  if (!job->reading) {
    job->reading = true;
    job->reading_since = std::chrono::steady_clock::now();
    job->cadence = log::ProgressCadence(kReportEvery);
    job->items_total = db_.Stats(table->id).item_count;
    {
      std::lock_guard lock(mutex_);
      running_[job->index_id] = job;
    }
    Log(log::Level::kInfo, "backfill started", *table, *job);
  }
  Result<std::optional<PrimaryKey>> done = db_.BackfillSlice(
      *table, job->after, kItemsPerSlice,
      [&](const Item& item, std::string_view encoding, storage::WriteBatchBuilder& batch) {
        ++job->items_done;
        return entries_.BackfillEntry(*table, job->index_id, item, encoding, batch);
      });
  if (!done.ok()) {
    Log(log::Level::kError, "backfill failed: " + done.error().message(), *table, *job);
    return Forget(*job);
  }
  if (*done) {
    if (auto level = job->cadence.Next()) Log(*level, "backfill progress", *table, *job);
    job->after = std::move(*done);
    executor_.Run([this, job] { RunSlice(job); });
    return;
  }
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - job->reading_since;
  Log(log::Level::kInfo, "backfill finished", *table, *job, took.count());
  Forget(*job);
  Finish(job);
}

void Backfills::Forget(const Job& job) {
  std::lock_guard lock(mutex_);
  running_.erase(job.index_id);
}

void Backfills::Log(log::Level level, std::string_view message, const TableDef& table,
                    const Job& job, std::optional<double> seconds) {
  const IndexDef* index = table.FindIndexById(job.index_id);
  log::Event(level, message,
             {{"namespace", table.scope},
              {"table", table.name},
              {"index", index ? index->name : std::string()},
              {"items_done", static_cast<int64_t>(job.items_done.load())},
              {"items_total", static_cast<int64_t>(job.items_total.load())},
              seconds ? log::Field("seconds", *seconds, 3) : log::Field("seconds", std::string())});
}

std::vector<BackfillProgress> Backfills::Running() const {
  std::lock_guard lock(mutex_);
  std::vector<BackfillProgress> running;
  for (const auto& [index_id, job] : running_) {
    running.push_back({job->table_id, index_id, job->items_done.load(), job->items_total.load()});
  }
  return running;
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
