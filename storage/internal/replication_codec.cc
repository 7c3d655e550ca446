// A replication group as bytes: a fixed sequence of its members (below); later additions go
// at the end, so a record written by an older ddbd reads with them absent.
#include "storage/internal/replication_codec.h"

#include <bit>

#include "storage/internal/binary_io.h"

namespace ddbd::storage {
namespace {

void PutOptionalInt(ByteWriter& w, const std::optional<int64_t>& value) {
  w.Byte(value ? 1 : 0);
  if (value) w.SignedVarint(*value);
}

std::optional<int64_t> ReadOptionalInt(ByteReader& in) {
  if (in.Byte() == 0) return std::nullopt;
  return in.SignedVarint();
}

void PutScaling(ByteWriter& w, const std::optional<AutoScaling>& scaling) {
  w.Byte(scaling ? 1 : 0);
  if (!scaling) return;
  w.SignedVarint(scaling->minimum_units);
  w.SignedVarint(scaling->maximum_units);
  w.Byte(scaling->disabled ? 1 : 0);
  w.Bytes(scaling->role_arn);
  w.Byte(scaling->policy ? 1 : 0);
  if (!scaling->policy) return;
  const ScalingPolicy& policy = *scaling->policy;
  w.Bytes(policy.name);
  w.FixedBigEndian64(std::bit_cast<uint64_t>(policy.target_value));
  w.Byte(!policy.disable_scale_in ? 0 : *policy.disable_scale_in ? 2 : 1);
  PutOptionalInt(w, policy.scale_in_cooldown);
  PutOptionalInt(w, policy.scale_out_cooldown);
}

std::optional<AutoScaling> ReadScaling(ByteReader& in) {
  if (in.Byte() == 0) return std::nullopt;
  AutoScaling scaling;
  scaling.minimum_units = in.SignedVarint();
  scaling.maximum_units = in.SignedVarint();
  scaling.disabled = in.Byte() != 0;
  scaling.role_arn = std::string(in.Bytes());
  if (in.Byte() == 0) return scaling;
  ScalingPolicy& policy = scaling.policy.emplace();
  policy.name = std::string(in.Bytes());
  policy.target_value = std::bit_cast<double>(in.FixedBigEndian64());
  const uint8_t scale_in = in.Byte();
  if (scale_in != 0) policy.disable_scale_in = scale_in == 2;
  policy.scale_in_cooldown = ReadOptionalInt(in);
  policy.scale_out_cooldown = ReadOptionalInt(in);
  return scaling;
}

void PutReplica(ByteWriter& w, const ReplicaSpec& replica) {
  w.Bytes(replica.region);
  w.Byte(static_cast<uint8_t>(replica.status));
  PutOptionalInt(w, replica.read_capacity_override);
  PutOptionalInt(w, replica.max_read_request_units_override);
  w.Byte(replica.table_class_override ? 1 : 0);
  if (replica.table_class_override) w.Bytes(*replica.table_class_override);
  w.SignedVarint(replica.table_class_changed_ms);
  w.Bytes(replica.kms_master_key_id);
  w.Varint(replica.indexes.size());
  for (const auto& index : replica.indexes) {
    w.Bytes(index.index_name);
    PutOptionalInt(w, index.read_capacity_override);
    PutOptionalInt(w, index.max_read_request_units_override);
    PutScaling(w, index.read_scaling);
  }
  PutScaling(w, replica.read_scaling);
}

bool ReadReplica(ByteReader& in, ReplicaSpec& replica) {
  replica.region = std::string(in.Bytes());
  const uint8_t status = in.Byte();
  if (status < 1 || status > 4) return false;
  replica.status = static_cast<ReplicaStatus>(status);
  replica.read_capacity_override = ReadOptionalInt(in);
  replica.max_read_request_units_override = ReadOptionalInt(in);
  if (in.Byte() != 0) replica.table_class_override = std::string(in.Bytes());
  replica.table_class_changed_ms = in.SignedVarint();
  replica.kms_master_key_id = std::string(in.Bytes());
  const uint64_t indexes = in.Varint();
  for (uint64_t i = 0; i < indexes && in.ok(); ++i) {
    ReplicaIndexSettings& index = replica.indexes.emplace_back();
    index.index_name = std::string(in.Bytes());
    index.read_capacity_override = ReadOptionalInt(in);
    index.max_read_request_units_override = ReadOptionalInt(in);
    index.read_scaling = ReadScaling(in);
  }
  replica.read_scaling = ReadScaling(in);
  return in.ok();
}

}  // namespace

std::string EncodeReplication(const ReplicationGroup& group) {
  std::string out;
  ByteWriter w(out);
  w.Varint(group.replicas.size());
  for (const auto& replica : group.replicas) PutReplica(w, replica);
  w.Byte(group.strong_consistency ? 1 : 0);
  w.Varint(group.witnesses.size());
  for (const auto& witness : group.witnesses) w.Bytes(witness);
  PutScaling(w, group.write_scaling);
  w.Varint(group.index_write_scaling.size());
  for (const auto& index : group.index_write_scaling) {
    w.Bytes(index.index_name);
    PutScaling(w, index.scaling);
  }
  return out;
}

bool DecodeReplication(std::string_view payload, ReplicationGroup& group) {
  ByteReader in(payload);
  const uint64_t replicas = in.Varint();
  for (uint64_t i = 0; i < replicas && in.ok(); ++i) {
    if (!ReadReplica(in, group.replicas.emplace_back())) return false;
  }
  group.strong_consistency = in.Byte() != 0;
  const uint64_t witnesses = in.Varint();
  for (uint64_t i = 0; i < witnesses && in.ok(); ++i) {
    group.witnesses.emplace_back(in.Bytes());
  }
  group.write_scaling = ReadScaling(in);
  const uint64_t indexes = in.Varint();
  for (uint64_t i = 0; i < indexes && in.ok(); ++i) {
    IndexWriteScaling& index = group.index_write_scaling.emplace_back();
    index.index_name = std::string(in.Bytes());
    std::optional<AutoScaling> scaling = ReadScaling(in);
    if (!scaling) return false;
    index.scaling = std::move(*scaling);
  }
  return in.ok();
}

}  // namespace ddbd::storage
