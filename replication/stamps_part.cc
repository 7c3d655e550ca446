// Last-writer-wins stamps in each item's write batch.
#include "replication/stamps_part.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "replication/regions.h"

namespace ddbd::replication {
namespace {

constexpr std::string_view kSuperseded = "The item has a later change in this replica";

// A stamp as stored: the time (8 bytes, big-endian, offset so that order is numeric) then the
// region. Two changes in the same millisecond are ordered by region name.
struct Stamp {
  int64_t time_ms = 0;
  std::string_view region;
  friend bool operator<(const Stamp& a, const Stamp& b) {
    return std::tie(a.time_ms, a.region) < std::tie(b.time_ms, b.region);
  }
};

std::string Encode(const Stamp& stamp) {
  std::string out(8, '\0');
  const uint64_t biased = static_cast<uint64_t>(stamp.time_ms) ^ (uint64_t{1} << 63);
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>(biased >> (56 - 8 * i));
  out.append(stamp.region);
  return out;
}

Stamp Decode(std::string_view bytes) {
  if (bytes.size() < 8) return {};
  uint64_t biased = 0;
  for (int i = 0; i < 8; ++i) biased = (biased << 8) | static_cast<uint8_t>(bytes[i]);
  return {static_cast<int64_t>(biased ^ (uint64_t{1} << 63)), bytes.substr(8)};
}

thread_local std::vector<uint64_t> strong_writes;

}  // namespace

std::vector<uint64_t> TakeStrongWrites() { return std::exchange(strong_writes, {}); }

bool Replicated(const TableDef& table) {
  return table.replication && table.replication->replicas.size() > 1 && RegionIsolated(table.scope);
}

Status StampsPart::Contribute(const storage::ItemChange& change,
                              storage::WriteBatchBuilder& batch) const {
  const storage::ItemWrite& write = change.write;
  if (!Replicated(*write.table)) return OkStatus();
  const Stamp stamp = write.replicated_from
                          ? Stamp{write.replicated_from->time_ms, write.replicated_from->region}
                          : Stamp{change.time_ms, write.table->region};
  if (write.replicated_from) {
    DDBD_ASSIGN_OR_RETURN(std::optional<std::string> stored, batch.ReplicaStamp());
    if (stored && !(Decode(*stored) < stamp)) {
      return Error::Validation(std::string(kSuperseded));
    }
  }
  batch.PutReplicaStamp(Encode(stamp));
  if (!write.replicated_from && write.table->replication->strong_consistency) {
    batch.AfterCommit([id = write.table->id] {
      if (std::find(strong_writes.begin(), strong_writes.end(), id) == strong_writes.end()) {
        strong_writes.push_back(id);
      }
    });
  }
  return OkStatus();
}

bool IsSuperseded(const Error& error) {
  return error.code() == ErrorCode::kValidation && error.message() == kSuperseded;
}

}  // namespace ddbd::replication
