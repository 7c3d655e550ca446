// TableDef ⇄ bytes. Each field is `tag varint ‖ length-prefixed payload`.
#include "storage/internal/table_codec.h"

#include <optional>

#include "storage/internal/binary_io.h"
#include "storage/internal/replication_codec.h"

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
  kTag = 17,                  // repeated
  kIndex = 18,                // repeated: a nested record of IndexField
  kOnDemand = 19,             // written only when a maximum is set
  kTtlAttribute = 20,         // written only while Time to Live is enabled
  kStream = 21,               // repeated, oldest first
  kPitr = 22,                 // written only while point-in-time recovery is enabled
  kRestoredFrom = 23,         // tables restored from a backup only
  kTtlIndexed = 24,           // written once the expiry keyspace holds every item (TTL enabled)
  kContributorInsights = 25,  // written once Contributor Insights has been configured
  kPolicy = 26,               // written once a resource-based policy has been put
  kReplication = 27,          // global tables: the replication group (replication_codec.cc)
  kKinesisDestination = 28,   // repeated, least recently enabled first
};

// Stored on disk: never renumber.
enum IndexField : uint64_t {
  kIndexId = 1,
  kIndexName = 2,
  kIndexLocal = 3,
  kIndexPartitionKey = 4,  // repeated (multi-attribute keys), in key order
  kIndexSortKey = 5,       // repeated
  kIndexProjection = 6,
  kIndexNonKeyAttribute = 7,  // repeated
  kIndexStatus = 8,
  kIndexBackfilling = 9,
  kIndexThroughput = 10,
  kIndexOnDemand = 11,             // written only when a maximum is set
  kIndexVector = 12,               // vector indexes only
  kIndexContributorInsights = 13,  // as the table's field 25
};

std::string EncodeInsights(const ContributorInsights& insights) {
  std::string payload;
  ByteWriter w(payload);
  w.Byte(insights.enabled ? 1 : 0);
  w.Byte(static_cast<uint8_t>(insights.mode));
  w.SignedVarint(insights.updated_ms);
  w.SignedVarint(insights.rules_created_ms);
  return payload;
}

void DecodeInsights(ByteReader& in, ContributorInsights& insights) {
  insights.enabled = in.Byte() != 0;
  insights.mode = static_cast<InsightsMode>(in.Byte());
  insights.updated_ms = in.SignedVarint();
  insights.rules_created_ms = in.SignedVarint();
}

class FieldWriter {
 public:
  explicit FieldWriter(std::string& out) : out_(out) {}
  void Put(uint64_t field, std::string_view payload) {
    ByteWriter writer(out_);
    writer.Varint(field);
    writer.Bytes(payload);
  }
  void PutInt(uint64_t field, int64_t v) {
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

// Fills a KeyElement or an AttributeDefinition: both are a name and a type.
template <typename NamedType>
bool DecodeKeyElement(std::string_view payload, NamedType& key) {
  ByteReader reader(payload);
  key.name = std::string(reader.Bytes());
  uint8_t t = reader.Byte();
  if (t < 1 || t > 3) return false;
  key.type = static_cast<KeyAttributeType>(t);
  return reader.ok();
}

std::string EncodeStrings(std::initializer_list<std::string_view> parts) {
  std::string out;
  ByteWriter writer(out);
  for (auto part : parts) writer.Bytes(part);
  return out;
}

std::string EncodeThroughput(const Throughput& t) {
  std::string payload;
  ByteWriter writer(payload);
  writer.SignedVarint(t.read_capacity_units);
  writer.SignedVarint(t.write_capacity_units);
  writer.SignedVarint(t.last_increase_ms);
  writer.SignedVarint(t.last_decrease_ms);
  writer.SignedVarint(t.decreases_today);
  return payload;
}

std::string EncodeOnDemand(const OnDemandThroughput& on_demand) {
  std::string payload;
  ByteWriter writer(payload);
  writer.SignedVarint(on_demand.max_read_request_units);
  writer.SignedVarint(on_demand.max_write_request_units);
  return payload;
}

void DecodeOnDemand(ByteReader& in, OnDemandThroughput& on_demand) {
  on_demand.max_read_request_units = in.SignedVarint();
  on_demand.max_write_request_units = in.SignedVarint();
}

void DecodeThroughput(ByteReader& in, Throughput& t) {
  t.read_capacity_units = in.SignedVarint();
  t.write_capacity_units = in.SignedVarint();
  t.last_increase_ms = in.SignedVarint();
  t.last_decrease_ms = in.SignedVarint();
  t.decreases_today = in.SignedVarint();
}

// attribute ‖ dimensions ‖ distance function ‖ the INLINE_FILTER attributes (name, type)…
std::string EncodeVectorSpec(const VectorSpec& spec) {
  std::string payload;
  ByteWriter writer(payload);
  writer.Bytes(spec.attribute);
  writer.SignedVarint(spec.dimensions);
  writer.SignedVarint(static_cast<int64_t>(spec.distance));
  for (const auto& filter : spec.filters) {
    writer.Bytes(filter.name);
    writer.Byte(static_cast<uint8_t>(filter.type));
  }
  return payload;
}

bool DecodeVectorSpec(ByteReader& in, VectorSpec& spec) {
  spec.attribute = std::string(in.Bytes());
  spec.dimensions = static_cast<uint32_t>(in.SignedVarint());
  spec.distance = static_cast<DistanceFunction>(in.SignedVarint());
  while (in.ok() && !in.done()) {
    KeyElement& filter = spec.filters.emplace_back();
    filter.name = std::string(in.Bytes());
    const uint8_t type = in.Byte();
    if (type < 1 || type > 3) return false;
    filter.type = static_cast<KeyAttributeType>(type);
  }
  return in.ok();
}

std::string EncodeIndex(const IndexDef& index) {
  std::string out;
  FieldWriter fields(out);
  fields.PutInt(kIndexId, static_cast<int64_t>(index.id));
  fields.Put(kIndexName, index.name);
  fields.PutInt(kIndexLocal, index.local ? 1 : 0);
  for (const auto& key : index.partition_keys) {
    fields.Put(kIndexPartitionKey, EncodeKeyElement(key.name, key.type));
  }
  for (const auto& key : index.sort_keys)
    fields.Put(kIndexSortKey, EncodeKeyElement(key.name, key.type));
  fields.PutInt(kIndexProjection, static_cast<int64_t>(index.projection));
  for (const auto& name : index.non_key_attributes) fields.Put(kIndexNonKeyAttribute, name);
  fields.PutInt(kIndexStatus, static_cast<int64_t>(index.status));
  fields.PutInt(kIndexBackfilling, index.backfilling ? 1 : 0);
  fields.Put(kIndexThroughput, EncodeThroughput(index.throughput));
  if (index.on_demand.IsSet()) fields.Put(kIndexOnDemand, EncodeOnDemand(index.on_demand));
  if (index.vector) fields.Put(kIndexVector, EncodeVectorSpec(*index.vector));
  if (index.contributor_insights) {
    fields.Put(kIndexContributorInsights, EncodeInsights(*index.contributor_insights));
  }
  return out;
}

// Walks a record of tagged fields, handing each (field, payload) to decode_field, which
// returns false when the payload is malformed. Unknown fields are the caller's to skip.
template <typename DecodeField>
bool ForEachField(std::string_view bytes, DecodeField decode_field) {
  ByteReader reader(bytes);
  while (reader.ok() && !reader.done()) {
    uint64_t field = reader.Varint();
    std::string_view payload = reader.Bytes();
    if (!reader.ok() || !decode_field(field, payload)) return false;
  }
  return reader.ok();
}

bool DecodeIndex(std::string_view bytes, IndexDef& index) {
  return ForEachField(bytes, [&index](uint64_t field, std::string_view payload) {
    ByteReader in(payload);
    bool ok = true;
    switch (field) {
      case kIndexId:
        index.id = static_cast<uint64_t>(in.SignedVarint());
        break;
      case kIndexName:
        index.name = std::string(payload);
        break;
      case kIndexLocal:
        index.local = in.SignedVarint() != 0;
        break;
      case kIndexPartitionKey:
        ok = DecodeKeyElement(payload, index.partition_keys.emplace_back());
        break;
      case kIndexSortKey:
        ok = DecodeKeyElement(payload, index.sort_keys.emplace_back());
        break;
      case kIndexProjection:
        index.projection = static_cast<ProjectionType>(in.SignedVarint());
        break;
      case kIndexNonKeyAttribute:
        index.non_key_attributes.emplace_back(payload);
        break;
      case kIndexStatus:
        index.status = static_cast<IndexStatus>(in.SignedVarint());
        break;
      case kIndexBackfilling:
        index.backfilling = in.SignedVarint() != 0;
        break;
      case kIndexThroughput:
        DecodeThroughput(in, index.throughput);
        break;
      case kIndexOnDemand:
        DecodeOnDemand(in, index.on_demand);
        break;
      case kIndexVector:
        ok = DecodeVectorSpec(in, index.vector.emplace());
        break;
      case kIndexContributorInsights:
        DecodeInsights(in, index.contributor_insights.emplace());
        break;
      default:
        break;  // a field written by a newer ddbd
    }
    return ok && in.ok();
  });
}

void WritePolicy(ByteWriter& w, const ResourcePolicy& policy) {
  w.Bytes(policy.document);
  w.SignedVarint(policy.revision);
  w.SignedVarint(policy.changed_ms);
}

void ReadPolicy(ByteReader& in, ResourcePolicy& policy) {
  policy.document = std::string(in.Bytes());
  policy.revision = in.SignedVarint();
  policy.changed_ms = in.SignedVarint();
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
  fields.Put(kThroughput, EncodeThroughput(t.throughput));
  fields.PutInt(kCreationTime, t.creation_time_ms);
  fields.PutInt(kStatus, static_cast<int64_t>(t.status));
  fields.PutInt(kDeletionProtection, t.deletion_protection ? 1 : 0);
  fields.Put(kTableClass, t.table_class);
  fields.Put(kSse,
             EncodeStrings({t.sse.enabled ? "1" : "0", t.sse.sse_type, t.sse.kms_master_key_id}));
  for (const auto& tag : t.tags) fields.Put(kTag, EncodeStrings({tag.key, tag.value}));
  for (const auto& index : t.indexes) fields.Put(kIndex, EncodeIndex(index));
  if (t.on_demand.IsSet()) fields.Put(kOnDemand, EncodeOnDemand(t.on_demand));
  if (t.ttl_attribute) fields.Put(kTtlAttribute, *t.ttl_attribute);
  if (t.ttl_indexed) fields.PutInt(kTtlIndexed, 1);
  if (t.contributor_insights) {
    fields.Put(kContributorInsights, EncodeInsights(*t.contributor_insights));
  }
  if (t.pitr_enabled_ms != 0) {
    std::string payload;
    ByteWriter w(payload);
    w.SignedVarint(t.pitr_enabled_ms);
    w.SignedVarint(t.pitr_recovery_days);
    w.SignedVarint(static_cast<int64_t>(t.pitr_history_id));
    fields.Put(kPitr, payload);
  }
  if (t.restored_from) {
    std::string payload;
    ByteWriter w(payload);
    w.Bytes(t.restored_from->backup_arn);
    w.Bytes(t.restored_from->table_arn);
    w.SignedVarint(t.restored_from->restored_ms);
    fields.Put(kRestoredFrom, payload);
  }
  for (const auto& stream : t.streams) {
    std::string payload;
    ByteWriter w(payload);
    w.Varint(stream.id);
    w.Byte(static_cast<uint8_t>(stream.view_type));
    w.SignedVarint(stream.created_ms);
    w.Byte(stream.enabled ? 1 : 0);
    if (stream.policy) WritePolicy(w, *stream.policy);  // a later addition: last, optional
    fields.Put(kStream, payload);
  }
  if (t.policy) {
    std::string payload;
    ByteWriter w(payload);
    WritePolicy(w, *t.policy);
    fields.Put(kPolicy, payload);
  }
  if (t.replication) fields.Put(kReplication, EncodeReplication(*t.replication));
  for (const auto& destination : t.kinesis_destinations) {
    std::string payload;
    ByteWriter w(payload);
    w.Bytes(destination.stream_arn);
    w.Varint(destination.records_id);
    w.Byte(destination.enabled ? 1 : 0);
    w.Byte(static_cast<uint8_t>(destination.last_change));
    w.SignedVarint(destination.changed_ms);
    w.Byte(destination.precision ? static_cast<uint8_t>(*destination.precision) : 0);
    fields.Put(kKinesisDestination, payload);
  }
  return out;
}

namespace {

// The decoders of the table record's fields, by group. Each returns nullopt for a field it
// does not decode, else whether the payload was well formed.

std::optional<bool> DecodeNamingField(uint64_t field, std::string_view payload, TableDef& t) {
  ByteReader in(payload);
  switch (field) {
    case kId:
      t.id = static_cast<uint64_t>(in.SignedVarint());
      break;
    case kScope:
      t.scope = std::string(payload);
      break;
    case kName:
      t.name = std::string(payload);
      break;
    case kUuid:
      t.table_uuid = std::string(payload);
      break;
    case kRegion:
      t.region = std::string(payload);
      break;
    case kPartitionKey:
      return DecodeKeyElement(payload, t.partition_key);
    case kSortKey:
      return DecodeKeyElement(payload, t.sort_key.emplace());
    case kAttributeDefinition:
      return DecodeKeyElement(payload, t.attribute_definitions.emplace_back());
    default:
      return std::nullopt;
  }
  return in.ok();
}

std::optional<bool> DecodeSettingField(uint64_t field, std::string_view payload, TableDef& t) {
  ByteReader in(payload);
  switch (field) {
    case kBillingMode:
      t.billing_mode = static_cast<BillingMode>(in.SignedVarint());
      break;
    case kBillingModeUpdated:
      t.billing_mode_updated_ms = in.SignedVarint();
      break;
    case kThroughput:
      DecodeThroughput(in, t.throughput);
      break;
    case kOnDemand:
      DecodeOnDemand(in, t.on_demand);
      break;
    case kCreationTime:
      t.creation_time_ms = in.SignedVarint();
      break;
    case kStatus:
      t.status = static_cast<TableStatus>(in.SignedVarint());
      break;
    case kDeletionProtection:
      t.deletion_protection = in.SignedVarint() != 0;
      break;
    case kTableClass:
      t.table_class = std::string(payload);
      break;
    case kTtlAttribute:
      t.ttl_attribute = std::string(payload);
      break;
    case kTtlIndexed:
      t.ttl_indexed = in.SignedVarint() != 0;
      break;
    case kPitr:
      t.pitr_enabled_ms = in.SignedVarint();
      t.pitr_recovery_days = in.SignedVarint();
      if (!in.done()) t.pitr_history_id = static_cast<uint64_t>(in.SignedVarint());
      break;
    case kContributorInsights:
      DecodeInsights(in, t.contributor_insights.emplace());
      break;
    case kSse:
      t.sse.enabled = in.Bytes() == "1";
      t.sse.sse_type = std::string(in.Bytes());
      t.sse.kms_master_key_id = std::string(in.Bytes());
      break;
    case kTag: {
      Tag& tag = t.tags.emplace_back();
      tag.key = std::string(in.Bytes());
      tag.value = std::string(in.Bytes());
      break;
    }
    default:
      return std::nullopt;
  }
  return in.ok();
}

bool DecodeKinesisDestination(ByteReader& in, KinesisDestination& destination) {
  destination.stream_arn = std::string(in.Bytes());
  destination.records_id = in.Varint();
  destination.enabled = in.Byte() != 0;
  const uint8_t change = in.Byte();
  if (change < 1 || change > 3) return false;
  destination.last_change = static_cast<KinesisChange>(change);
  destination.changed_ms = in.SignedVarint();
  const uint8_t precision = in.Byte();
  if (precision > 2) return false;
  if (precision != 0) destination.precision = static_cast<KinesisPrecision>(precision);
  return in.ok();
}

std::optional<bool> DecodeCompositeField(uint64_t field, std::string_view payload, TableDef& t) {
  ByteReader in(payload);
  switch (field) {
    case kRestoredFrom: {
      TableDef::RestoreSource& source = t.restored_from.emplace();
      source.backup_arn = std::string(in.Bytes());
      source.table_arn = std::string(in.Bytes());
      source.restored_ms = in.SignedVarint();
      break;
    }
    case kStream: {
      StreamSpec& stream = t.streams.emplace_back();
      stream.id = in.Varint();
      const uint8_t view = in.Byte();
      if (view < 1 || view > 4) return false;
      stream.view_type = static_cast<StreamViewType>(view);
      stream.created_ms = in.SignedVarint();
      stream.enabled = in.Byte() != 0;
      if (!in.done()) ReadPolicy(in, stream.policy.emplace());
      break;
    }
    case kPolicy:
      ReadPolicy(in, t.policy.emplace());
      break;
    case kReplication:
      return DecodeReplication(payload, t.replication.emplace());
    case kKinesisDestination:
      return DecodeKinesisDestination(in, t.kinesis_destinations.emplace_back());
    case kIndex:
      return DecodeIndex(payload, t.indexes.emplace_back());
    default:
      return std::nullopt;
  }
  return in.ok();
}

}  // namespace

Result<TableDef> DecodeTableDef(std::string_view bytes) {
  TableDef t;
  const bool ok = ForEachField(bytes, [&t](uint64_t field, std::string_view payload) {
    for (auto decode : {DecodeNamingField, DecodeSettingField, DecodeCompositeField}) {
      if (std::optional<bool> decoded = decode(field, payload, t)) return *decoded;
    }
    return true;  // a field written by a newer ddbd
  });
  if (!ok) return Error::Internal("corrupt table record");
  return t;
}

}  // namespace ddbd::storage
