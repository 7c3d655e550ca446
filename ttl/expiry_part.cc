// Expiry records in each item's write batch.
#include "ttl/expiry_part.h"

#include "ttl/expiry.h"

namespace ddbd::ttl {

std::optional<std::string> ExpiryPart::TtlAttribute(uint64_t table_id) const {
  auto table = catalog_.FindById(table_id);
  if (!table) return std::nullopt;
  return table->ttl_attribute;
}

bool ExpiryPart::NeedsOldItem(const storage::ItemWrite& write) const {
  return TtlAttribute(write.table->id).has_value();
}

Status ExpiryPart::Contribute(const storage::ItemChange& change,
                              storage::WriteBatchBuilder& batch) const {
  const std::optional<std::string> attribute = TtlAttribute(change.write.table->id);
  if (!attribute) return OkStatus();
  const storage::WriteOutcome& outcome = change.outcome;
  const AttributeValue* before =
      outcome.old_item ? ExpiryOf(*outcome.old_item, *attribute) : nullptr;
  const AttributeValue* after =
      outcome.new_item ? ExpiryOf(*outcome.new_item, *attribute) : nullptr;
  if (before && after && *before == *after) return OkStatus();
  if (before) batch.DeleteExpiry(*before);
  if (after) batch.PutExpiry(*after);
  return OkStatus();
}

Status ExpiryPart::BackfillExpiry(const TableDef& table, const Item& item,
                                  storage::WriteBatchBuilder& batch) {
  if (!table.ttl_attribute) return OkStatus();
  if (const AttributeValue* expiry = ExpiryOf(item, *table.ttl_attribute)) batch.PutExpiry(*expiry);
  return OkStatus();
}

}  // namespace ddbd::ttl
