// Time to Live's background deletion of expired items.
#include "server/ttl_sweeper.h"

#include <cstdio>
#include <limits>
#include <vector>

#include "model/number.h"
#include "model/log.h"

namespace ddbd::server {
namespace {

// DynamoDB leaves items whose expiry lies more than five years in the past alone.
constexpr int64_t kFiveYearsMs = int64_t{5} * 36525 * 864 * 1000;  // 5 × 365.25 days

// Epoch milliseconds as a Number of seconds ("1764470000.123").
Number SecondsOf(int64_t ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%lld.%03lld", static_cast<long long>(ms / 1000),
                static_cast<long long>(ms % 1000));
  return Number::Parse(text).value();
}

// DynamoDB keeps stream records for 24 hours.
constexpr int64_t kStreamRetentionMs = int64_t{24} * 3600 * 1000;

// How many expired keys one table's pass collects before deleting them: the scan reads a
// snapshot, so deleting in between is safe, and memory stays bounded on huge tables.
constexpr size_t kKeysPerRound = 1000;

}  // namespace

ExpiryWindow::ExpiryWindow(int64_t now_ms)
    : earliest_(SecondsOf(now_ms - kFiveYearsMs)), now_(SecondsOf(now_ms)) {}

bool ExpiryWindow::Expired(const AttributeMap& item, std::string_view attribute) const {
  auto it = item.find(attribute);
  if (it == item.end() || it->second.type() != AttributeType::kN) return false;
  auto expiry = Number::Parse(it->second.scalar());
  if (!expiry.ok()) return false;
  return *expiry < now_ && *expiry >= earliest_;
}

bool IsExpired(const AttributeMap& item, std::string_view attribute, int64_t now_ms) {
  return ExpiryWindow(now_ms).Expired(item, attribute);
}

void TtlSweeper::Start() {
  std::lock_guard lock(mutex_);
  if (thread_.joinable() || stopping_) return;
  thread_ = std::thread([this] { Run(); });
}

bool TtlSweeper::Stopping() {
  std::lock_guard lock(mutex_);
  return stopping_;
}

void TtlSweeper::Wake() {
  std::lock_guard lock(mutex_);
  woken_ = true;
  wake_.notify_all();
}

void TtlSweeper::Stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    wake_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
}

void TtlSweeper::Run() {
  using Clock = std::chrono::steady_clock;
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    woken_ = false;
    lock.unlock();
    auto started = Clock::now();
    auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
    auto swept = SweepOnce(now_ms);
    if (!swept.ok()) {
      log::Warning("TTL pass failed (retried later): %s",
                   swept.error().message().c_str());
    }
    auto pause = std::max<Clock::duration>(interval_, (Clock::now() - started) * 20);
    lock.lock();
    wake_.wait_for(lock, pause, [this] { return stopping_ || woken_; });
  }
}

Result<uint64_t> TtlSweeper::SweepOnce(int64_t now_ms) {
  uint64_t deleted = 0;
  for (const auto& table : catalog_.AllTables()) {
    for (const StreamSpec& stream : table->streams) {
      DDBD_RETURN_IF_ERROR(db_.TrimStream(stream.id, now_ms - kStreamRetentionMs));
    }
    if (!table->ttl_attribute || table->status != TableStatus::kActive) continue;
    if (Stopping()) break;
    DDBD_ASSIGN_OR_RETURN(uint64_t count, SweepTable(*table, now_ms));
    deleted += count;
  }
  return deleted;
}

Result<uint64_t> TtlSweeper::SweepTable(const TableDef& table, int64_t now_ms) {
  const std::string& attribute = *table.ttl_attribute;
  const ExpiryWindow window(now_ms);
  uint64_t deleted = 0;
  auto cursor = db_.ScanHashRange(table, 0, std::numeric_limits<uint64_t>::max(), std::nullopt);
  std::vector<PrimaryKey> expired;
  auto delete_expired = [&]() -> Status {
    for (PrimaryKey& key : expired) {
      storage::ItemWrite write;
      write.table = &table;
      write.key = std::move(key);
      write.by_ttl = true;
      // An item changed meanwhile so that it no longer expires (or gone) is left alone: the
      // failed condition writes nothing.
      write.compute = [&](const std::optional<Item>& old) -> Result<std::optional<Item>> {
        if (!old || !window.Expired(*old, attribute)) return Error::ConditionalCheckFailed();
        return std::optional<Item>();
      };
      std::vector<storage::ItemWrite> writes;
      writes.push_back(std::move(write));
      auto outcome = db_.WriteItems(std::move(writes));
      if (outcome.ok()) {
        ++deleted;
      } else if (outcome.error().code() != ErrorCode::kConditionalCheckFailed) {
        return std::move(outcome).error();
      }
    }
    expired.clear();
    return OkStatus();
  };
  uint64_t scanned = 0;
  for (; cursor->Valid(); cursor->Next()) {
    if (++scanned % 4096 == 0 && Stopping()) break;  // a large table must not hold up a shutdown
    DDBD_ASSIGN_OR_RETURN(Item item, cursor->item());
    if (!window.Expired(item, attribute)) continue;
    expired.push_back(KeyOf(table, item));
    if (expired.size() == kKeysPerRound) DDBD_RETURN_IF_ERROR(delete_expired());
  }
  DDBD_RETURN_IF_ERROR(cursor->status());
  DDBD_RETURN_IF_ERROR(delete_expired());
  return deleted;
}

}  // namespace ddbd::server
