// Database: on-demand backups — the raw copy of a table's items under the backup's own id,
// and the backup's record in the catalog (internal/backup_codec.h).
#include "storage/internal/backup_codec.h"
#include "storage/internal/binary_io.h"
#include "storage/internal/database_impl.h"
#include "storage/internal/item_codec.h"
#include "storage/internal/key_codec.h"

namespace ddbd::storage {
namespace {

std::string BackupKey(std::string_view scope, uint64_t backup_id) {
  std::string key(1, kBackupPrefix);
  key.append(scope);
  key.push_back('\0');
  ByteWriter(key).FixedBigEndian64(backup_id);
  return key;
}

// A snapshot's record (kSnapshotPrefix) or its unowned copies' (kUnownedCopiesPrefix).
std::string SnapshotKey(std::string_view scope, std::string_view name,
                        char prefix = kSnapshotPrefix) {
  std::string key(1, prefix);
  key.append(scope);
  key.push_back('\0');
  key.append(name);
  return key;
}

// created_ms, then each table's backup record, length-prefixed.
std::string EncodeSnapshot(const SnapshotRecord& snapshot) {
  std::string bytes;
  ByteWriter out(bytes);
  out.SignedVarint(snapshot.created_ms);
  out.Varint(snapshot.tables.size());
  for (const BackupRecord& table : snapshot.tables) out.Bytes(EncodeBackup(table));
  return bytes;
}

Result<SnapshotRecord> DecodeSnapshot(std::string_view key, std::string_view bytes) {
  SnapshotRecord snapshot;
  const size_t separator = key.find('\0');
  snapshot.scope = std::string(key.substr(1, separator - 1));
  snapshot.name = std::string(key.substr(separator + 1));
  ByteReader in(bytes);
  snapshot.created_ms = in.SignedVarint();
  const uint64_t count = in.Varint();
  for (uint64_t i = 0; i < count && in.ok(); ++i) {
    DDBD_ASSIGN_OR_RETURN(BackupRecord table, DecodeBackup(in.Bytes()));
    snapshot.tables.push_back(std::move(table));
  }
  if (!in.ok() || !in.done()) return Error::Internal("corrupt snapshot record");
  return snapshot;
}

// Every record under `prefix` (either kind of SnapshotKey), by scope then name.
Result<std::vector<SnapshotRecord>> ScanSnapshots(rocksdb::DB& db,
                                                  rocksdb::ColumnFamilyHandle* family,
                                                  char prefix) {
  std::vector<SnapshotRecord> snapshots;
  const std::string start(1, prefix);
  std::unique_ptr<rocksdb::Iterator> it(db.NewIterator(rocksdb::ReadOptions(), family));
  for (it->Seek(start); it->Valid() && it->key().starts_with(start); it->Next()) {
    DDBD_ASSIGN_OR_RETURN(SnapshotRecord snapshot,
                          DecodeSnapshot(std::string_view(it->key().data(), it->key().size()),
                                         std::string_view(it->value().data(), it->value().size())));
    snapshots.push_back(std::move(snapshot));
  }
  if (!it->status().ok()) return StorageError(it->status());
  return snapshots;
}

// The backup records whose keys start with `prefix` (kBackupPrefix, then perhaps a scope and
// its \0), by scope then id.
Result<std::vector<Database::ScopedBackup>> ScanBackups(rocksdb::DB& db,
                                                        rocksdb::ColumnFamilyHandle* family,
                                                        std::string_view prefix) {
  std::vector<Database::ScopedBackup> backups;
  std::unique_ptr<rocksdb::Iterator> it(db.NewIterator(rocksdb::ReadOptions(), family));
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    // kBackupPrefix ‖ scope ‖ \0 ‖ id (8 bytes)
    const std::string_view key(it->key().data(), it->key().size());
    if (key.size() < 10 || key[key.size() - 9] != '\0') continue;
    DDBD_ASSIGN_OR_RETURN(BackupRecord backup,
                          DecodeBackup(std::string_view(it->value().data(), it->value().size())));
    backups.push_back({std::string(key.substr(1, key.size() - 10)), std::move(backup)});
  }
  if (!it->status().ok()) return StorageError(it->status());
  return backups;
}

}  // namespace

Result<std::vector<SnapshotRecord>> Database::Snapshots() {
  return ScanSnapshots(*impl_->db, impl_->catalog, kSnapshotPrefix);
}

Status Database::PutUnownedCopies(const SnapshotRecord& copies) {
  rocksdb::Status status = impl_->db->Put(
      impl_->write_options, impl_->catalog,
      SnapshotKey(copies.scope, copies.name, kUnownedCopiesPrefix), EncodeSnapshot(copies));
  if (!status.ok()) return StorageError(status);
  return OkStatus();
}

Status Database::DeleteUnownedCopies(std::string_view scope, std::string_view name) {
  rocksdb::Status status = impl_->db->Delete(impl_->write_options, impl_->catalog,
                                             SnapshotKey(scope, name, kUnownedCopiesPrefix));
  if (!status.ok()) return StorageError(status);
  return OkStatus();
}

Result<std::vector<SnapshotRecord>> Database::UnownedCopies() {
  return ScanSnapshots(*impl_->db, impl_->catalog, kUnownedCopiesPrefix);
}

Status Database::CommitSnapshot(std::string_view scope, std::string_view name,
                                const std::optional<SnapshotRecord>& snapshot,
                                const std::vector<BackupRecord>& released) {
  rocksdb::WriteBatch batch;
  if (snapshot) {
    batch.Put(impl_->catalog, SnapshotKey(scope, name), EncodeSnapshot(*snapshot));
  } else {
    batch.Delete(impl_->catalog, SnapshotKey(scope, name));
  }
  const std::string unowned = SnapshotKey(scope, name, kUnownedCopiesPrefix);
  if (released.empty()) {
    batch.Delete(impl_->catalog, unowned);
  } else {
    batch.Put(impl_->catalog, unowned,
              EncodeSnapshot({std::string(scope), std::string(name), 0, released}));
  }
  return impl_->Commit(batch);
}

Result<TableStats> Database::CopyItems(uint64_t from_id, uint64_t to_id) {
  TableStats copied;
  DDBD_RETURN_IF_ERROR(
      impl_->CopyRanges(nullptr, {{impl_->items, TablePrefix(from_id), TablePrefix(from_id + 1),
                                   TablePrefix(to_id), &copied}}));
  return copied;
}

Status Database::DropItems(uint64_t id) {
  rocksdb::Status status = impl_->db->DeleteRange(impl_->write_options, impl_->items,
                                                  TablePrefix(id), TablePrefix(id + 1));
  if (!status.ok()) return StorageError(status);
  return OkStatus();
}

Status Database::PutBackup(std::string_view scope, const BackupRecord& backup) {
  rocksdb::Status status = impl_->db->Put(impl_->write_options, impl_->catalog,
                                          BackupKey(scope, backup.id), EncodeBackup(backup));
  if (!status.ok()) return StorageError(status);
  return OkStatus();
}

Status Database::DeleteBackup(std::string_view scope, uint64_t backup_id) {
  rocksdb::WriteBatch batch;
  batch.Delete(impl_->catalog, BackupKey(scope, backup_id));
  batch.DeleteRange(impl_->items, TablePrefix(backup_id), TablePrefix(backup_id + 1));
  return impl_->Commit(batch);
}

Result<std::vector<BackupRecord>> Database::Backups(std::string_view scope) {
  std::string prefix(1, kBackupPrefix);
  prefix.append(scope);
  prefix.push_back('\0');
  DDBD_ASSIGN_OR_RETURN(std::vector<ScopedBackup> scoped,
                        ScanBackups(*impl_->db, impl_->catalog, prefix));
  std::vector<BackupRecord> backups;
  for (ScopedBackup& entry : scoped) backups.push_back(std::move(entry.backup));
  return backups;
}

Result<std::vector<Database::ScopedBackup>> Database::AllBackups() {
  return ScanBackups(*impl_->db, impl_->catalog, std::string(1, kBackupPrefix));
}

}  // namespace ddbd::storage
