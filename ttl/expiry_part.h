// ExpiryPart: Time to Live's expiry keyspace, kept in each item's write batch
// (storage/write.h): for a table with TTL enabled, an item whose TTL attribute is a Number
// has one expiry record (expiry time ‖ item key), moved when the attribute changes and
// removed with the item — so a pass of the sweeper reads only what has expired. The table's
// current definition decides (a write racing with enabling TTL is caught by the backfill,
// which re-reads each item under its lock).
//
// Entry points: ExpiryPart (registered once with storage), BackfillExpiry.
#pragma once

#include "storage/catalog.h"
#include "storage/write.h"

namespace ddbd::ttl {

class ExpiryPart : public storage::WritePart {
 public:
  explicit ExpiryPart(const storage::Catalog& catalog) : catalog_(catalog) {}

  bool NeedsOldItem(const storage::ItemWrite& write) const override;
  Status Contribute(const storage::ItemChange& change,
                    storage::WriteBatchBuilder& batch) const override;

  // The expiry record of one stored item (Time to Live just enabled; Database::BackfillSlice).
  static Status BackfillExpiry(const TableDef& table, const Item& item,
                               storage::WriteBatchBuilder& batch);

 private:
  // The TTL attribute of the table, when TTL is enabled on it now.
  std::optional<std::string> TtlAttribute(uint64_t table_id) const;

  const storage::Catalog& catalog_;
};

}  // namespace ddbd::ttl
