// Database: the catalog's records — table definitions, the table id sequence — and dropping
// a table or an index in O(1), with range deletions of everything stored under its ids.
#include "storage/internal/binary_io.h"
#include "storage/internal/database_impl.h"
#include "storage/internal/key_codec.h"
#include "storage/internal/table_codec.h"

namespace ddbd::storage {
namespace {

std::string TableRecordKey(const TableDef& table) {
  std::string key(1, kTablePrefix);
  key += table.scope;
  key.push_back('\0');
  key += table.name;
  return key;
}

}  // namespace

std::string CatalogPrefix(char prefix, uint64_t table_id) {
  std::string key(1, prefix);
  ByteWriter(key).FixedBigEndian64(table_id);
  return key;
}

Result<std::vector<TableDef>> Database::LoadTables() {
  std::vector<TableDef> tables;
  std::unique_ptr<rocksdb::Iterator> it(
      impl_->db->NewIterator(rocksdb::ReadOptions(), impl_->catalog));
  for (it->Seek(std::string(1, kTablePrefix)); it->Valid() && it->key()[0] == kTablePrefix;
       it->Next()) {
    DDBD_ASSIGN_OR_RETURN(TableDef table,
                          DecodeTableDef(std::string_view(it->value().data(), it->value().size())));
    tables.push_back(std::move(table));
  }
  if (!it->status().ok()) return StorageError(it->status());
  return tables;
}

Result<uint64_t> Database::AllocateTableId() {
  std::lock_guard lock(impl_->table_id_mutex);
  uint64_t id = impl_->next_table_id;
  std::string value;
  ByteWriter(value).FixedBigEndian64(id + 1);
  rocksdb::Status status =
      impl_->db->Put(impl_->write_options, impl_->catalog, kNextTableIdKey, value);
  if (!status.ok()) return StorageError(status);
  impl_->next_table_id = id + 1;
  return id;
}

Status Database::PutTable(const TableDef& table) {
  rocksdb::Status status = impl_->db->Put(impl_->write_options, impl_->catalog,
                                          TableRecordKey(table), EncodeTableDef(table));
  if (!status.ok()) return StorageError(status);
  return OkStatus();
}

Status Database::DropTable(const TableDef& table) {
  rocksdb::Status status =
      impl_->db->Delete(impl_->write_options, impl_->catalog, TableRecordKey(table));
  if (!status.ok()) return StorageError(status);
  return DropTableData(table);
}

Status Database::DropIndex(const TableDef& table, uint64_t index_id) {
  rocksdb::WriteBatch batch;
  const TableStats live = Stats(index_id);
  batch.Merge(impl_->catalog, StatsKey(table.id),
              EncodeStats(index_id, TableStats{-live.item_count, -live.size_bytes}));
  batch.DeleteRange(impl_->indexes, TablePrefix(index_id), TablePrefix(index_id + 1));
  DDBD_RETURN_IF_ERROR(impl_->Commit(batch));
  std::unique_lock lock(impl_->stats_mutex);
  impl_->stats.erase(index_id);
  return OkStatus();
}

}  // namespace ddbd::storage
