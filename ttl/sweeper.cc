// Time to Live's passes and the expiry keyspace's backfill.
#include "ttl/sweeper.h"

#include <algorithm>
#include <thread>

#include "model/log.h"
#include "ttl/expiry.h"
#include "ttl/expiry_part.h"

namespace ddbd::ttl {
namespace {

// How many expired keys one table's pass handles before it looks again (memory stays
// bounded on tables where much expires at once).
constexpr size_t kKeysPerRound = 1000;
// Items per backfill slice.
constexpr size_t kItemsPerSlice = 1000;

}  // namespace

struct Sweeper::Backfill {
  uint64_t table_id;
  std::optional<PrimaryKey> after;  // the last item done
};

void Sweeper::Start() {
  {
    std::lock_guard lock(mutex_);
    if (started_) return;
    started_ = true;
  }
  executor_.Run([this] { Pass(); });
}

void Sweeper::Wake() {
  {
    std::lock_guard lock(mutex_);
    if (!started_ || pass_scheduled_) return;
    pass_scheduled_ = true;
  }
  executor_.Run([this] {
    {
      std::lock_guard lock(mutex_);
      pass_scheduled_ = false;
    }
    if (clock_.UnderTestControl()) return;
    SweepOnce(clock_.NowMs()).IgnoreError();  // failures are retried by the periodic pass
  });
}

void Sweeper::Pass() {
  const auto started = std::chrono::steady_clock::now();
  if (clock_.UnderTestControl()) {
    // The test sweeps when it wants to (SweepNow).
  } else if (auto swept = SweepOnce(clock_.NowMs()); !swept.ok()) {
    log::Warning("TTL pass failed (retried later): %s", swept.error().message().c_str());
  }
  const auto pause = std::max<std::chrono::steady_clock::duration>(
      interval_, (std::chrono::steady_clock::now() - started) * 20);
  executor_.RunAfter(pause, [this] { Pass(); });
}

Result<uint64_t> Sweeper::SweepOnce(int64_t now_ms) {
  uint64_t deleted = 0;
  for (const auto& table : catalog_.AllTables()) {
    if (!table->ttl_attribute || table->status != TableStatus::kActive) continue;
    if (executor_.stopping()) break;
    DDBD_ASSIGN_OR_RETURN(uint64_t count, SweepTable(*table, now_ms));
    deleted += count;
    deleted_total_.fetch_add(count, std::memory_order_relaxed);
  }
  return deleted;
}

Result<uint64_t> Sweeper::SweepNow(std::chrono::milliseconds wait) {
  const auto deadline = std::chrono::steady_clock::now() + wait;
  for (;;) {
    const auto tables = catalog_.AllTables();
    const bool complete = std::none_of(tables.begin(), tables.end(), [](const auto& table) {
      return table->ttl_attribute && !table->ttl_indexed;
    });
    if (complete) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      return Error::Internal("the Time to Live backfill of a table did not finish in time");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return SweepOnce(clock_.NowMs());
}

Result<uint64_t> Sweeper::SweepTable(const TableDef& table, int64_t now_ms) {
  const std::string& attribute = *table.ttl_attribute;
  const ExpiryWindow window(now_ms);
  uint64_t deleted = 0;
  for (;;) {
    DDBD_ASSIGN_OR_RETURN(
        std::vector<PrimaryKey> expired,
        db_.ExpiredItems(table.id, window.earliest(), window.now(), kKeysPerRound));
    uint64_t round = 0;
    for (PrimaryKey& key : expired) {
      storage::ItemWrite write;
      write.table = &table;
      write.key = std::move(key);
      write.by_ttl = true;
      // An item changed meanwhile so that it no longer expires (or gone) is left alone: the
      // failed condition writes nothing.
      write.compute = [&](const std::optional<Item>& old) {
        if (!old || !window.Expired(*old, attribute)) {
          return storage::Mutation::Fail(Error::ConditionalCheckFailed());
        }
        return storage::Mutation::Store(std::nullopt);
      };
      std::vector<storage::ItemWrite> writes;
      writes.push_back(std::move(write));
      auto outcome = db_.WriteItems(std::move(writes));
      if (outcome.ok()) {
        ++round;
      } else if (outcome.error().code() != ErrorCode::kConditionalCheckFailed) {
        return std::move(outcome).error();
      }
    }
    deleted += round;
    // A full round may have more behind it; a round where nothing could go is a record of an
    // item that no longer expires this way (its write moved the record), so stop.
    if (expired.size() < kKeysPerRound || round == 0 || executor_.stopping()) break;
  }
  return deleted;
}

void Sweeper::IndexTable(uint64_t table_id) {
  auto backfill = std::make_shared<Backfill>(Backfill{table_id, std::nullopt});
  executor_.Run([this, backfill] { IndexSlice(backfill); });
}

void Sweeper::Resume() {
  for (const auto& table : catalog_.AllTables()) {
    if (table->ttl_attribute && !table->ttl_indexed) IndexTable(table->id);
  }
}

void Sweeper::IndexSlice(std::shared_ptr<Backfill> backfill) {
  if (executor_.stopping()) return;  // resumed at the next start
  auto table = catalog_.FindById(backfill->table_id);
  if (!table || !table->ttl_attribute) return;  // dropped, or TTL disabled meanwhile
  if (!backfill->after) {
    // Records a write added while TTL was being disabled before may linger: start clean.
    // Writes since TTL was enabled lose theirs too, and the scan below puts them back.
    if (Status dropped = db_.DropExpiries(table->id); !dropped.ok()) {
      log::Error("Time to Live backfill of table %s failed: %s", table->name.c_str(),
                 dropped.error().message().c_str());
      return;
    }
  }
  Result<std::optional<PrimaryKey>> done =
      db_.BackfillSlice(*table, backfill->after, kItemsPerSlice,
                        [&](const Item& item, std::string_view, storage::WriteBatchBuilder& batch) {
                          return ExpiryPart::BackfillExpiry(*table, item, batch);
                        });
  if (!done.ok()) {
    log::Error("Time to Live backfill of table %s failed: %s", table->name.c_str(),
               done.error().message().c_str());
    return;
  }
  if (*done) {
    backfill->after = std::move(*done);
    executor_.Run([this, backfill] { IndexSlice(backfill); });
    return;
  }
  const std::string attribute = *table->ttl_attribute;
  auto indexed = catalog_.Modify(backfill->table_id, [&](TableDef& current) {
    // Only if TTL is still on for the attribute this backfill indexed.
    if (current.ttl_attribute == attribute) current.ttl_indexed = true;
    return OkStatus();
  });
  indexed.IgnoreError();  // the table was dropped meanwhile
  Wake();
}

}  // namespace ddbd::ttl
