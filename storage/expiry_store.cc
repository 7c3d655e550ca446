// Database: Time to Live's expiry keyspace — per table, the items' expiry times (Numbers of
// epoch seconds, in the order-preserving key encoding) followed by their keys — written by
// the Time to Live part in each item's batch, so that a pass reads only what has expired.
#include "storage/internal/database_impl.h"
#include "storage/internal/item_codec.h"
#include "storage/internal/key_codec.h"

namespace ddbd::storage {

Result<std::vector<PrimaryKey>> Database::ExpiredItems(uint64_t table_id,
                                                       const AttributeValue& earliest,
                                                       const AttributeValue& latest, size_t limit) {
  const std::string prefix = CatalogPrefix(kExpiryPrefix, table_id);
  std::string lower = prefix, upper = prefix;
  EncodeKeyValue(earliest, lower);
  EncodeKeyValue(latest, upper);  // every key of an expiry below `latest` sorts below this
  rocksdb::ReadOptions options;
  rocksdb::Slice upper_slice(upper);
  options.iterate_upper_bound = &upper_slice;
  std::unique_ptr<rocksdb::Iterator> it(impl_->db->NewIterator(options, impl_->catalog));
  std::vector<PrimaryKey> keys;
  for (it->Seek(lower); it->Valid() && keys.size() < limit; it->Next()) {
    DDBD_ASSIGN_OR_RETURN(
        PrimaryKey key, DecodePrimaryKey(std::string_view(it->value().data(), it->value().size())));
    keys.push_back(std::move(key));
  }
  if (!it->status().ok()) return StorageError(it->status());
  return keys;
}

Status Database::DropExpiries(uint64_t table_id) {
  rocksdb::WriteBatch batch;
  batch.DeleteRange(impl_->catalog, CatalogPrefix(kExpiryPrefix, table_id),
                    CatalogPrefix(kExpiryPrefix, table_id + 1));
  return impl_->Commit(batch);
}

}  // namespace ddbd::storage
