// TopKeys: the heaviest keys of a stream of weighted accesses, in bounded memory — the
// Space-Saving algorithm (Metwally, Agrawal and El Abbadi, 2005). At most `capacity` keys are
// kept; a key not kept replaces the lightest kept one and inherits its weight as its possible
// overcount (`error`). Any key whose true weight exceeds total / capacity is kept, and a kept
// key's weight is at most `error` above its true weight.
//
// Not thread-safe: the owner locks.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace ddbd::insight {

class TopKeys {
 public:
  struct Entry {
    uint64_t hash = 0;
    std::string label;  // the key as people read it
    double weight = 0;
    double error = 0;  // how much of `weight` may belong to keys it replaced
  };

  explicit TopKeys(size_t capacity = 32) : capacity_(capacity) {}

  // Adds `weight` to the key `hash`; `label()` names a key when it is newly kept (only then
  // is it called, so a hot key costs no formatting).
  template <typename Label>
  void Add(uint64_t hash, double weight, const Label& label) {
    total_ += weight;
    Entry* lightest = nullptr;  // found in the same pass as the key
    for (Entry& entry : entries_) {
      if (entry.hash == hash) {
        entry.weight += weight;
        return;
      }
      if (!lightest || entry.weight < lightest->weight) lightest = &entry;
    }
    if (entries_.size() < capacity_) {
      entries_.push_back({hash, label(), weight, 0});
      return;
    }
    *lightest = {hash, label(), lightest->weight + weight, lightest->weight};
  }

  // The `n` heaviest kept keys by the weight they certainly have (`weight` − `error`: a
  // lower bound of the true weight), heaviest first, ties by label; each entry's `weight` is
  // that lower bound.
  std::vector<Entry> Top(size_t n) const {
    std::vector<Entry> top = entries_;
    for (Entry& entry : top) {
      entry.weight -= entry.error;
      entry.error = 0;
    }
    std::sort(top.begin(), top.end(), [](const Entry& a, const Entry& b) {
      return a.weight != b.weight ? a.weight > b.weight : a.label < b.label;
    });
    if (top.size() > n) top.resize(n);
    return top;
  }

  // The weight of every access added, kept key or not.
  double total() const { return total_; }
  // Keys seen, up to the capacity (more distinct keys than that show as `capacity`).
  size_t distinct_kept() const { return entries_.size(); }

 private:
  size_t capacity_;
  std::vector<Entry> entries_;  // few: a linear scan beats a hash map here
  double total_ = 0;
};

}  // namespace ddbd::insight
