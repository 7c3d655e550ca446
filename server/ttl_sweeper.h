// TtlSweeper: Time to Live's background deletion. Items of tables with TTL enabled whose TTL
// attribute is a Number of epoch seconds in the past (but no more than five years past, which
// DynamoDB ignores) are deleted as DeleteItem would delete them — indexes, statistics and
// vector indexes follow in the same batch — and free of charge.
//
// DynamoDB deletes expired items within days; a local server is most useful when it does so
// promptly, so the sweeper passes over the TTL tables every `interval`, and also at once when
// TTL is enabled on a table. A pass reads every item of those tables, so when passes get
// long (large tables) the pause after one grows to 20 times its duration: the sweeper never
// takes more than about 5 % of a core.
//
// The same passes expire stream records after DynamoDB's 24 hours.
//
// Entry points: IsExpired, ExpiryWindow, TtlSweeper::{Start, Wake, SweepOnce, Stop}.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string_view>
#include <thread>

#include "model/attribute_value.h"
#include "model/number.h"
#include "model/result.h"
#include "storage/catalog.h"
#include "storage/database.h"

namespace ddbd::server {

// Whether `item` has expired at `now_ms` (milliseconds since the epoch) under TTL on
// `attribute`: a top-level Number below the current time in seconds, and not more than five
// years below it. Items without the attribute, or with another type, never expire.
bool IsExpired(const AttributeMap& item, std::string_view attribute, int64_t now_ms);

// The same test with its bounds computed once, for a pass that checks many items.
class ExpiryWindow {
 public:
  explicit ExpiryWindow(int64_t now_ms);
  bool Expired(const AttributeMap& item, std::string_view attribute) const;

 private:
  Number earliest_;  // five years before now, in seconds
  Number now_;
};

class TtlSweeper {
 public:
  TtlSweeper(storage::Database& db, storage::Catalog& catalog, std::chrono::milliseconds interval)
      : db_(db), catalog_(catalog), interval_(interval) {}
  ~TtlSweeper() { Stop(); }
  TtlSweeper(const TtlSweeper&) = delete;
  TtlSweeper& operator=(const TtlSweeper&) = delete;

  // Starts the background passes.
  void Start();
  // Starts a pass now (TTL was just enabled on a table).
  void Wake();
  // One pass over every table with TTL enabled, at time `now_ms`: deletes the items expired
  // then (re-checked under each item's lock, so a concurrent update that extends an item's
  // life wins), and the stream records older than 24 hours. Returns the number of items
  // deleted.
  Result<uint64_t> SweepOnce(int64_t now_ms);
  // Ends the background passes (waits for the current one). Idempotent.
  void Stop();

 private:
  Result<uint64_t> SweepTable(const TableDef& table, int64_t now_ms);
  bool Stopping();
  void Run();

  storage::Database& db_;
  storage::Catalog& catalog_;
  const std::chrono::milliseconds interval_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool woken_ = false;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace ddbd::server
