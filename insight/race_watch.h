// RaceWatch: read-modify-writes made without a condition, and the lost updates they cause,
// recognised from the order of reads and writes of each item.
//
// A "blind" write takes its new image only from the request — an unconditional PutItem, or an
// unconditional UpdateItem that only SETs values it sent — so if its values came from an
// earlier read, nothing stops it from overwriting a change made since. Per item the watch
// counts the reads not yet followed by a write, and the reads a write has made stale (another
// client read the item, then someone wrote it). A blind write while a stale read is
// outstanding is a lost update: some writer replaced the item with values derived from what
// it read before the previous write (read, read, write, write). A blind write consuming a
// fresh read is an unguarded read-modify-write: correct alone, racing under concurrency.
// Stale reads older than kStaleForMs no longer count: a racing writer writes soon after it
// reads. Memory is bounded: at most `capacity` items, the oldest forgotten first.
//
// Not thread-safe: the owner locks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ddbd::insight {

class RaceWatch {
 public:
  static constexpr int64_t kStaleForMs = 10'000;

  enum class Verdict : uint8_t { kOther, kReadModifyWrite, kLostUpdate };

  explicit RaceWatch(size_t capacity = 1024) : capacity_(capacity) {}

  // A read of the item `item` (a hash of its key).
  void Read(uint64_t item);
  // An applied write of `item` at `now_ms` (a steady clock); `blind` as above.
  Verdict Write(uint64_t item, bool blind, int64_t now_ms);

 private:
  struct State {
    uint32_t reads = 0;  // reads since the item's last write
    uint32_t stale = 0;  // reads made before the last write, not yet followed by a write
    int64_t stale_since_ms = 0;
  };

  size_t capacity_;
  std::unordered_map<uint64_t, State> items_;
  std::vector<uint64_t> order_;  // items in the order they were first tracked: a ring
  size_t oldest_ = 0;
};

}  // namespace ddbd::insight
