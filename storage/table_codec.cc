// TableDef ⇄ bytes. Each field is `tag varint ‖ length-prefixed payload`.
#include "storage/table_codec.h"

#include "storage/binary_io.h"

namespace ddbd::storage {
namespace {

// Stored on disk: never renumber.
enum Field : uint64_t {
  kId = 1,
  kScope = 2,
  kName = 3,
  kUuid = 4,
  kRegion = 5,
  kPartitionKey = 6,
  kSortKey = 7,
  kAttributeDefinition = 8,  // repeated
  kBillingMode = 9,
  kBillingModeUpdated = 10,
  kThroughput = 11,
  kCreationTime = 12,
  kStatus = 13,
  kDeletionProtection = 14,
  kTableClass = 15,
  kSse = 16,
  kTag = 17,  // repeated
};

class FieldWriter {
 public:
  explicit FieldWriter(std::string& out) : out_(out) {}
  void Put(Field field, std::string_view payload) {
    ByteWriter writer(out_);
    writer.Varint(field);
    writer.Bytes(payload);
  }
  void PutInt(Field field, int64_t v) {
    std::string payload;
    ByteWriter(payload).SignedVarint(v);
    Put(field, payload);
  }

 private:
  std::string& out_;
};

std::string EncodeKeyElement(std::string_view name, KeyAttributeType type) {
  std::string out;
  ByteWriter writer(out);
  writer.Bytes(name);
  writer.Byte(static_cast<uint8_t>(type));
  return out;
}

bool DecodeKeyElement(std::string_view payload, std::string& name, KeyAttributeType& type) {
  ByteReader reader(payload);
  name = std::string(reader.Bytes());
  uint8_t t = reader.Byte();
  if (t < 1 || t > 3) return false;
  type = static_cast<KeyAttributeType>(t);
  return reader.ok();
}

std::string EncodeStrings(std::initializer_list<std::string_view> parts) {
  std::string out;
  ByteWriter writer(out);
  for (auto part : parts) writer.Bytes(part);
  return out;
}

}  // namespace

std::string EncodeTableDef(const TableDef& t) {
  std::string out;
  FieldWriter fields(out);
  fields.PutInt(kId, static_cast<int64_t>(t.id));
  fields.Put(kScope, t.scope);
  fields.Put(kName, t.name);
  fields.Put(kUuid, t.table_uuid);
  fields.Put(kRegion, t.region);
  fields.Put(kPartitionKey, EncodeKeyElement(t.partition_key.name, t.partition_key.type));
  if (t.sort_key) fields.Put(kSortKey, EncodeKeyElement(t.sort_key->name, t.sort_key->type));
  for (const auto& def : t.attribute_definitions) {
    fields.Put(kAttributeDefinition, EncodeKeyElement(def.name, def.type));
  }
  fields.PutInt(kBillingMode, static_cast<int64_t>(t.billing_mode));
  fields.PutInt(kBillingModeUpdated, t.billing_mode_updated_ms);
  {
    std::string payload;
    ByteWriter writer(payload);
    writer.SignedVarint(t.throughput.read_capacity_units);
    writer.SignedVarint(t.throughput.write_capacity_units);
    writer.SignedVarint(t.throughput.last_increase_ms);
    writer.SignedVarint(t.throughput.last_decrease_ms);
    writer.SignedVarint(t.throughput.decreases_today);
    fields.Put(kThroughput, payload);
  }
  fields.PutInt(kCreationTime, t.creation_time_ms);
  fields.PutInt(kStatus, static_cast<int64_t>(t.status));
  fields.PutInt(kDeletionProtection, t.deletion_protection ? 1 : 0);
  fields.Put(kTableClass, t.table_class);
  fields.Put(kSse, EncodeStrings({t.sse.enabled ? "1" : "0", t.sse.sse_type,
                                  t.sse.kms_master_key_id}));
  for (const auto& tag : t.tags) fields.Put(kTag, EncodeStrings({tag.key, tag.value}));
  return out;
}

Result<TableDef> DecodeTableDef(std::string_view bytes) {
  TableDef t;
  ByteReader reader(bytes);
  bool ok = true;
  while (ok && reader.ok() && !reader.done()) {
    uint64_t field = reader.Varint();
    std::string_view payload = reader.Bytes();
    ByteReader in(payload);
    switch (field) {
      case kId: t.id = static_cast<uint64_t>(in.SignedVarint()); break;
      case kScope: t.scope = std::string(payload); break;
      case kName: t.name = std::string(payload); break;
      case kUuid: t.table_uuid = std::string(payload); break;
      case kRegion: t.region = std::string(payload); break;
      case kPartitionKey:
        ok = DecodeKeyElement(payload, t.partition_key.name, t.partition_key.type);
        break;
      case kSortKey:
        t.sort_key.emplace();
        ok = DecodeKeyElement(payload, t.sort_key->name, t.sort_key->type);
        break;
      case kAttributeDefinition: {
        AttributeDefinition def;
        ok = DecodeKeyElement(payload, def.name, def.type);
        t.attribute_definitions.push_back(std::move(def));
        break;
      }
      case kBillingMode: t.billing_mode = static_cast<BillingMode>(in.SignedVarint()); break;
      case kBillingModeUpdated: t.billing_mode_updated_ms = in.SignedVarint(); break;
      case kThroughput:
        t.throughput.read_capacity_units = in.SignedVarint();
        t.throughput.write_capacity_units = in.SignedVarint();
        t.throughput.last_increase_ms = in.SignedVarint();
        t.throughput.last_decrease_ms = in.SignedVarint();
        t.throughput.decreases_today = in.SignedVarint();
        break;
      case kCreationTime: t.creation_time_ms = in.SignedVarint(); break;
      case kStatus: t.status = static_cast<TableStatus>(in.SignedVarint()); break;
      case kDeletionProtection: t.deletion_protection = in.SignedVarint() != 0; break;
      case kTableClass: t.table_class = std::string(payload); break;
      case kSse:
        t.sse.enabled = in.Bytes() == "1";
        t.sse.sse_type = std::string(in.Bytes());
        t.sse.kms_master_key_id = std::string(in.Bytes());
        break;
      case kTag: {
        Tag tag;
        tag.key = std::string(in.Bytes());
        tag.value = std::string(in.Bytes());
        t.tags.push_back(std::move(tag));
        break;
      }
      default:
        break;  // a field written by a newer ddbd
    }
    ok = ok && in.ok();
  }
  if (!ok || !reader.ok()) return Error::Internal("corrupt table record");
  return t;
}

}  // namespace ddbd::storage
