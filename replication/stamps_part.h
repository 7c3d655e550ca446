// StampsPart: last writer wins, as DynamoDB resolves conflicting writes to a global table's
// replicas. Every change of an item of a replicated table records, in the change's own batch,
// the item's stamp — when and in which region the change was first made — and keeps it after
// the item is deleted. A replicated change (ItemWrite::replicated_from) applies only when its
// stamp is later than the item's: otherwise it is refused with kSuperseded, and the
// replicator skips it. Applying the same change twice is refused the same way, so
// replication may repeat a change after a crash without harm.
//
// Entry points: StampsPart (registered once with storage), IsSuperseded.
#pragma once

#include <cstdint>
#include <vector>

#include "model/error.h"
#include "storage/write.h"

namespace ddbd::replication {

class StampsPart : public storage::WritePart {
 public:
  bool NeedsOldItem(const storage::ItemWrite&) const override { return false; }
  Status Contribute(const storage::ItemChange& change,
                    storage::WriteBatchBuilder& batch) const override;
};

// The tables of multi-Region strong consistency (MultiRegionConsistency STRONG) that this
// thread has changed since its last call, each once: the request path replicates their
// changes before answering (Replicator::CatchUp).
std::vector<uint64_t> TakeStrongWrites();

// Whether a replicated write failed because the item has a later change.
bool IsSuperseded(const Error& error);

// Whether the items of `table` carry stamps: a replica whose group has other replicas with
// data of their own (region isolation).
bool Replicated(const TableDef& table);

}  // namespace ddbd::replication
