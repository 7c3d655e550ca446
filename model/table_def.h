// TableDef: everything ddbd knows about a table's definition, shared by storage (which
// persists it in the catalog) and server (which validates against it and renders
// DescribeTable). Pure data; live statistics (item count, size) are kept by storage.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/attribute_value.h"
#include "model/primary_key.h"
#include "model/replication.h"

namespace ddbd {

// Stored on disk (catalog): never renumber.
enum class KeyAttributeType : uint8_t { kS = 1, kN = 2, kB = 3 };
enum class BillingMode : uint8_t { kProvisioned = 1, kPayPerRequest = 2 };
enum class TableStatus : uint8_t { kCreating = 1, kActive = 2, kDeleting = 3, kUpdating = 4 };

std::string_view KeyAttributeTypeName(KeyAttributeType type);
AttributeType ToAttributeType(KeyAttributeType type);

struct KeyElement {
  std::string name;
  KeyAttributeType type = KeyAttributeType::kS;
  friend bool operator==(const KeyElement&, const KeyElement&) = default;
};

struct AttributeDefinition {
  std::string name;
  KeyAttributeType type = KeyAttributeType::kS;
  friend bool operator==(const AttributeDefinition&, const AttributeDefinition&) = default;
};

struct Throughput {
  int64_t read_capacity_units = 0;
  int64_t write_capacity_units = 0;
  int64_t last_increase_ms = 0;  // 0: never
  int64_t last_decrease_ms = 0;
  int64_t decreases_today = 0;
  friend bool operator==(const Throughput&, const Throughput&) = default;
};

// The maximum request units of an on-demand table or GSI; -1 is "no maximum", which is
// also what a request sends to clear one.
struct OnDemandThroughput {
  int64_t max_read_request_units = -1;
  int64_t max_write_request_units = -1;
  bool IsSet() const { return max_read_request_units != -1 || max_write_request_units != -1; }
  friend bool operator==(const OnDemandThroughput&, const OnDemandThroughput&) = default;
};

struct Tag {
  std::string key;
  std::string value;
  friend bool operator==(const Tag&, const Tag&) = default;
};

struct SseDescription {
  bool enabled = false;
  std::string sse_type;  // "KMS" when enabled
  std::string kms_master_key_id;
  friend bool operator==(const SseDescription&, const SseDescription&) = default;
};

// Stored on disk (catalog): never renumber.
enum class ProjectionType : uint8_t { kAll = 1, kKeysOnly = 2, kInclude = 3 };
// The wire name of a projection type: "ALL", "KEYS_ONLY", "INCLUDE".
std::string_view ProjectionTypeName(ProjectionType type);
enum class IndexStatus : uint8_t { kCreating = 1, kActive = 2, kDeleting = 3, kUpdating = 4 };

// Stored on disk (catalog): never renumber.
enum class DistanceFunction : uint8_t { kCosine = 1, kEuclidean = 2, kDotProduct = 3 };
std::string_view DistanceFunctionName(DistanceFunction function);

// What makes an index a vector index: the attribute holding the vector, its fixed length,
// how distance is measured, and the INLINE_FILTER attributes of its search schema (its HASH
// element, if any, is the index's single partition key).
struct VectorSpec {
  std::string attribute;
  uint32_t dimensions = 0;
  DistanceFunction distance = DistanceFunction::kCosine;
  std::vector<KeyElement> filters;  // in declaration order
  friend bool operator==(const VectorSpec&, const VectorSpec&) = default;
};

// Contributor Insights on a table or a GSI (UpdateContributorInsights); absent until first
// configured. The status DynamoDB reports (ENABLING, ENABLED, DISABLING, DISABLED) follows
// from `enabled` and how long ago `updated_ms` was (the transient-status delay).
enum class InsightsMode : uint8_t { kAccessedAndThrottledKeys = 1, kThrottledKeys = 2 };
struct ContributorInsights {
  bool enabled = false;
  InsightsMode mode = InsightsMode::kAccessedAndThrottledKeys;
  int64_t updated_ms = 0;        // the last change of status or mode (LastUpdateDateTime)
  int64_t rules_created_ms = 0;  // when last enabled from disabled: the rule names' suffix
  friend bool operator==(const ContributorInsights&, const ContributorInsights&) = default;
};

// A global or local secondary index, or a vector index (`vector` set). GSIs may have
// multi-attribute keys: up to four partition and up to four sort attributes; LSIs have
// exactly one of each; a vector index has no sort key and at most one partition key (its
// search schema's HASH element).
struct IndexDef {
  uint64_t id = 0;  // storage id, from the same sequence as table ids
  std::string name;
  bool local = false;                      // an LSI (shares the table's partition key)
  std::vector<KeyElement> partition_keys;  // at least one
  std::vector<KeyElement> sort_keys;
  ProjectionType projection = ProjectionType::kAll;
  std::vector<std::string> non_key_attributes;  // kInclude
  IndexStatus status = IndexStatus::kActive;
  bool backfilling = false;
  Throughput throughput;                                    // GSIs of provisioned tables
  OnDemandThroughput on_demand;                             // GSIs of on-demand tables
  std::optional<VectorSpec> vector;                         // vector indexes
  std::optional<ContributorInsights> contributor_insights;  // GSIs

  bool IsVector() const { return vector.has_value(); }
  bool HasKeyAttribute(std::string_view attribute) const {
    for (const auto& key : partition_keys) {
      if (key.name == attribute) return true;
    }
    for (const auto& key : sort_keys) {
      if (key.name == attribute) return true;
    }
    return false;
  }
  friend bool operator==(const IndexDef&, const IndexDef&) = default;
};

// DynamoDB Streams: what each record of a stream carries besides the item's keys.
enum class StreamViewType : uint8_t {
  kKeysOnly = 1,
  kNewImage = 2,
  kOldImage = 3,
  kNewAndOldImages = 4
};
std::string_view StreamViewTypeName(StreamViewType type);

// A resource-based policy (PutResourcePolicy) of a table or stream: its document as
// GetResourcePolicy returns it (normalized), its RevisionId (a number: the epoch milliseconds
// of the change that made it, raised past the previous revision when the clock has not moved
// on) and when that change was. After DeleteResourcePolicy the document is empty and the
// revision is the deletion's.
struct ResourcePolicy {
  std::string document;
  int64_t revision = 0;
  int64_t changed_ms = 0;
  std::string RevisionId() const { return std::to_string(revision); }
  bool deleted() const { return document.empty(); }
  friend bool operator==(const ResourcePolicy&, const ResourcePolicy&) = default;
};

// One stream of a table. Enabling a table's stream creates a new one (a new ARN); disabling
// it leaves it readable, DISABLED.
struct StreamSpec {
  uint64_t id = 0;  // storage id of its records
  StreamViewType view_type = StreamViewType::kKeysOnly;
  int64_t created_ms = 0;  // its label (and so its ARN) derive from this
  bool enabled = true;
  std::optional<ResourcePolicy> policy;
  // The label DynamoDB gives: the creation time, "2026-11-30T02:41:45.123" (UTC).
  std::string Label() const;
  friend bool operator==(const StreamSpec&, const StreamSpec&) = default;
};

// A Kinesis Data Streams destination of a table (EnableKinesisStreamingDestination). The
// status DynamoDB reports follows from `enabled`, the last change and how long ago it was
// (the transient-status delay): ENABLING or UPDATING then ACTIVE, DISABLING then DISABLED.
// A DISABLED entry is kept, and enabling its stream again reuses it.
// Stored on disk (catalog): never renumber.
enum class KinesisChange : uint8_t { kEnable = 1, kDisable = 2, kUpdate = 3 };
enum class KinesisPrecision : uint8_t { kMillisecond = 1, kMicrosecond = 2 };
struct KinesisDestination {
  std::string stream_arn;
  // Where storage keeps the changes captured for it until they are delivered (an id from
  // the table-id allocator, read and trimmed as a stream's records).
  uint64_t records_id = 0;
  bool enabled = true;  // changes are captured
  KinesisChange last_change = KinesisChange::kEnable;
  int64_t changed_ms = 0;
  // ApproximateCreationDateTimePrecision, once set by a request (absent reads as MILLISECOND).
  std::optional<KinesisPrecision> precision;
  friend bool operator==(const KinesisDestination&, const KinesisDestination&) = default;
};

// Where a restored table came from. Declared outside TableDef because clang cannot use a
// nested class's default member initialisers (std::optional<T>::emplace()) inside its parent.
struct TableRestoreSource {
  std::string backup_arn;
  std::string table_arn;
  int64_t restored_ms = 0;
  friend bool operator==(const TableRestoreSource&, const TableRestoreSource&) = default;
};

struct TableDef {
  uint64_t id = 0;    // storage id, unique for the lifetime of the database
  std::string scope;  // isolation namespace; empty when tables are shared
  std::string name;
  std::string table_uuid;  // DynamoDB's TableId
  std::string region;      // region of the ARN, from the creating request
  KeyElement partition_key;
  std::optional<KeyElement> sort_key;
  std::vector<AttributeDefinition> attribute_definitions;
  BillingMode billing_mode = BillingMode::kPayPerRequest;
  int64_t billing_mode_updated_ms = 0;
  Throughput throughput;
  OnDemandThroughput on_demand;
  int64_t creation_time_ms = 0;
  TableStatus status = TableStatus::kActive;
  bool deletion_protection = false;
  std::string table_class = "STANDARD";
  SseDescription sse;
  std::vector<Tag> tags;
  std::vector<IndexDef> indexes;  // GSIs, LSIs and vector indexes, in declaration order
  // Time to Live: the attribute holding each item's expiry (epoch seconds) while TTL is
  // enabled; nullopt while it is disabled.
  std::optional<std::string> ttl_attribute;
  // Whether the expiry keyspace holds every item's expiry (true once the backfill that
  // enabling Time to Live starts has finished; items written since are always in it).
  bool ttl_indexed = false;
  std::optional<ContributorInsights> contributor_insights;
  // Every stream the table has had, oldest first; the last one is the current stream.
  std::vector<StreamSpec> streams;
  // Point-in-time recovery (UpdateContinuousBackups): when it was enabled (0 while it is
  // disabled) and the recovery period in days.
  int64_t pitr_enabled_ms = 0;
  int64_t pitr_recovery_days = 35;
  // Where storage keeps its history while PITR is enabled (an id from the table-id
  // allocator; 0: none). A copy of the definition (a snapshot's) has none of its own.
  uint64_t pitr_history_id = 0;
  // Set on a table restored from a backup (DescribeTable's RestoreSummary).
  using RestoreSource = TableRestoreSource;
  std::optional<RestoreSource> restored_from;
  // The table's resource-based policy (PutResourcePolicy, CreateTable's ResourcePolicy).
  std::optional<ResourcePolicy> policy;
  // The global table this table is a replica of; nullopt for a regional table.
  std::optional<ReplicationGroup> replication;
  // Kinesis streaming destinations, least recently enabled first; at most one is enabled.
  // Not part of DescribeTable, not restored with backups.
  std::vector<KinesisDestination> kinesis_destinations;

  std::string Arn() const;
  // The ARN of one of its streams.
  std::string StreamArn(const StreamSpec& stream) const;
  // The current stream when it is enabled, else nullptr.
  const StreamSpec* EnabledStream() const {
    return !streams.empty() && streams.back().enabled ? &streams.back() : nullptr;
  }
  // The destination whose changes are captured, else nullptr.
  const KinesisDestination* EnabledKinesisDestination() const {
    for (const auto& destination : kinesis_destinations) {
      if (destination.enabled) return &destination;
    }
    return nullptr;
  }
  // Any index by name (GSI, LSI or vector index).
  const IndexDef* FindIndex(std::string_view index_name) const;
  const IndexDef* FindIndexById(uint64_t index_id) const;
  bool HasVectorIndexes() const {
    for (const auto& index : indexes) {
      if (index.IsVector()) return true;
    }
    return false;
  }
  bool IsKeyAttribute(std::string_view attribute) const {
    return partition_key.name == attribute || (sort_key && sort_key->name == attribute);
  }
  friend bool operator==(const TableDef&, const TableDef&) = default;
};

inline constexpr std::string_view kAccountId = "000000000000";
// Whether `text` has an AWS account id's shape: twelve digits.
bool IsAccountId(std::string_view text);

// True when `name` matches [a-zA-Z0-9_.-]+, the character set of table and index names.
bool IsValidResourceName(std::string_view name);

}  // namespace ddbd

namespace ddbd {

// The primary key of `item`. REQUIRES: `item` holds the table's key attributes.
PrimaryKey KeyOf(const TableDef& table, const AttributeMap& item);

}  // namespace ddbd
