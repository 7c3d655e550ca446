// Backup records (FORMAT.md, "Backups"): this format, and the JSON of earlier versions.
#include "storage/internal/backup_codec.h"

#include <array>
#include <charconv>
#include <optional>

#include "storage/internal/binary_io.h"
#include "storage/internal/table_codec.h"

namespace ddbd::storage {
namespace {

// Stored on disk: the first byte of a backup record in this format; never renumber.
constexpr uint8_t kBackupFormat = 1;

Error Corrupt() { return Error::Internal("corrupt backup record"); }

}  // namespace

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
  if (backup.point_in_time) w.Byte(1);  // absent in user backups' records
  return out;
}

namespace {

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
  if (!text ||
      std::from_chars(text->data(), text->data() + text->size(), value).ec != std::errc()) {
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

}  // namespace

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
  if (in.ok() && !in.done()) backup.point_in_time = in.Byte() == 1;
  if (!in.ok() || !in.done()) return Corrupt();
  DDBD_ASSIGN_OR_RETURN(backup.source, DecodeTableDef(table));
  return backup;
}

}  // namespace ddbd::storage
