// Database: on-demand backups — the raw copy of a table's items under the backup's own id,
// and the backup's record in the catalog (FORMAT.md, "Backups"). Records written before
// this format (JSON, by earlier ddbd versions) are still read.
#include <array>
#include <charconv>

#include "storage/internal/binary_io.h"
#include "storage/internal/database_impl.h"
#include "storage/internal/item_codec.h"
#include "storage/internal/key_codec.h"
#include "storage/internal/table_codec.h"

namespace ddbd::storage {
namespace {

// Stored on disk: the first byte of a backup record in this format; never renumber.
constexpr uint8_t kBackupFormat = 1;

Error Corrupt() { return Error::Internal("corrupt backup record"); }

std::string BackupKey(std::string_view scope, uint64_t backup_id) {
  std::string key(1, kBackupPrefix);
  key.append(scope);
  key.push_back('\0');
  ByteWriter(key).FixedBigEndian64(backup_id);
  return key;
}

std::string EncodeBackup(const BackupRecord& backup) {
  std::string out;
  ByteWriter w(out);
  w.Byte(kBackupFormat);
  w.Varint(backup.id);
  w.Bytes(backup.name);
  w.SignedVarint(backup.created_ms);
  w.SignedVarint(backup.size_bytes);
  w.SignedVarint(backup.item_count);
  w.Bytes(EncodeTableDef(backup.source));
  return out;
}

// ---- The JSON records of earlier versions: {"id":N,"name":"…","created":N,"size":N,
// "count":N,"table":"<base64 table record>"}, written by ddbd itself, so of exactly this
// shape (backup names need no escapes).

std::optional<std::string_view> JsonMember(std::string_view json, std::string_view name) {
  const std::string pattern = "\"" + std::string(name) + "\":";
  const size_t at = json.find(pattern);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = json.substr(at + pattern.size());
  if (!rest.empty() && rest.front() == '"') {
    const size_t end = rest.find('"', 1);
    if (end == std::string_view::npos) return std::nullopt;
    return rest.substr(1, end - 1);
  }
  return rest.substr(0, rest.find_first_of(",}"));
}

std::optional<int64_t> JsonInteger(std::string_view json, std::string_view name) {
  std::optional<std::string_view> text = JsonMember(json, name);
  int64_t value = 0;
  if (!text || std::from_chars(text->data(), text->data() + text->size(), value).ec != std::errc()) {
    return std::nullopt;
  }
  return value;
}

std::optional<std::string> Base64Decode(std::string_view text) {
  static const std::array<int8_t, 256> kValues = [] {
    std::array<int8_t, 256> values{};
    values.fill(-1);
    constexpr std::string_view kAlphabet =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < kAlphabet.size(); ++i) {
      values[static_cast<uint8_t>(kAlphabet[i])] = static_cast<int8_t>(i);
    }
    return values;
  }();
  std::string out;
  uint32_t bits = 0;
  int count = 0;
  for (char c : text) {
    if (c == '=') break;
    const int8_t value = kValues[static_cast<uint8_t>(c)];
    if (value < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<uint32_t>(value);
    if ((count += 6) >= 8) {
      count -= 8;
      out.push_back(static_cast<char>((bits >> count) & 0xFF));
    }
  }
  return out;
}

Result<BackupRecord> DecodeLegacyBackup(std::string_view json) {
  BackupRecord backup;
  auto id = JsonInteger(json, "id");
  auto name = JsonMember(json, "name");
  auto created = JsonInteger(json, "created");
  auto size = JsonInteger(json, "size");
  auto count = JsonInteger(json, "count");
  auto table = JsonMember(json, "table");
  std::optional<std::string> definition = table ? Base64Decode(*table) : std::nullopt;
  if (!id || !name || !created || !size || !count || !definition) return Corrupt();
  backup.id = static_cast<uint64_t>(*id);
  backup.name = std::string(*name);
  backup.created_ms = *created;
  backup.size_bytes = *size;
  backup.item_count = *count;
  DDBD_ASSIGN_OR_RETURN(backup.source, DecodeTableDef(*definition));
  return backup;
}

Result<BackupRecord> DecodeBackup(std::string_view bytes) {
  if (!bytes.empty() && bytes.front() == '{') return DecodeLegacyBackup(bytes);
  ByteReader in(bytes);
  if (in.Byte() != kBackupFormat) return Corrupt();
  BackupRecord backup;
  backup.id = in.Varint();
  backup.name = std::string(in.Bytes());
  backup.created_ms = in.SignedVarint();
  backup.size_bytes = in.SignedVarint();
  backup.item_count = in.SignedVarint();
  const std::string_view table = in.Bytes();
  if (!in.ok() || !in.done()) return Corrupt();
  DDBD_ASSIGN_OR_RETURN(backup.source, DecodeTableDef(table));
  return backup;
}

}  // namespace

Result<TableStats> Database::CopyItems(uint64_t from_id, uint64_t to_id) {
  TableStats copied;
  const std::string end = TablePrefix(from_id + 1);
  rocksdb::ReadOptions options;
  rocksdb::Slice upper(end);
  options.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(impl_->db->NewIterator(options, impl_->items));
  const std::string from = TablePrefix(from_id), to = TablePrefix(to_id);
  rocksdb::WriteBatch batch;
  for (it->Seek(from); it->Valid(); it->Next()) {
    const std::string_view value(it->value().data(), it->value().size());
    DDBD_ASSIGN_OR_RETURN(size_t size, StoredItemSize(value));
    ++copied.item_count;
    copied.size_bytes += static_cast<int64_t>(size);
    batch.Put(impl_->items,
              to + std::string(it->key().data() + from.size(), it->key().size() - from.size()),
              it->value());
    if (batch.Count() >= 1000) {
      DDBD_RETURN_IF_ERROR(impl_->Commit(batch));
      batch.Clear();
    }
  }
  if (!it->status().ok()) return StorageError(it->status());
  DDBD_RETURN_IF_ERROR(impl_->Commit(batch));
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
  rocksdb::Status status =
      impl_->db->Delete(impl_->write_options, impl_->catalog, BackupKey(scope, backup_id));
  if (!status.ok()) return StorageError(status);
  return OkStatus();
}

Result<std::vector<BackupRecord>> Database::Backups(std::string_view scope) {
  std::vector<BackupRecord> backups;
  std::string prefix(1, kBackupPrefix);
  prefix.append(scope);
  prefix.push_back('\0');
  std::unique_ptr<rocksdb::Iterator> it(
      impl_->db->NewIterator(rocksdb::ReadOptions(), impl_->catalog));
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix) &&
                         it->key().size() == prefix.size() + 8;
       it->Next()) {
    DDBD_ASSIGN_OR_RETURN(BackupRecord backup,
                          DecodeBackup(std::string_view(it->value().data(), it->value().size())));
    backups.push_back(std::move(backup));
  }
  if (!it->status().ok()) return StorageError(it->status());
  return backups;
}

}  // namespace ddbd::storage
