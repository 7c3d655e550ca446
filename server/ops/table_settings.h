// Table settings that CreateTable and UpdateTable both accept: billing mode, provisioned
// throughput, SSE, table class, and the rules that tie billing mode and throughput together.
#pragma once

#include <optional>
#include <string_view>

#include "model/table_def.h"
#include "server/ops/common.h"

namespace ddbd::server::ops {

struct ThroughputInput {
  std::optional<int64_t> read;
  std::optional<int64_t> write;
};

// OnDemandThroughput as sent: each member optional; -1 clears a maximum.
struct OnDemandInput {
  std::optional<int64_t> max_read;
  std::optional<int64_t> max_write;
};

// Reads the OnDemandThroughput member of `object` (a table's request or a GSI's).
Result<std::optional<OnDemandInput>> ReadOnDemandThroughput(
    wire::JsonObject object, std::string_view member = "OnDemandThroughput");

// Where maximums were sent: DynamoDB words its errors by it, and only updates may send -1.
enum class OnDemandSite { kCreateTable, kUpdateTable, kCreateIndex, kUpdateIndex };

// DynamoDB's rules for maximums: none on a PROVISIONED table (checked first), and each at
// least 1, or -1 in an update to clear it. `index_name` names the GSI for the index sites.
Status CheckOnDemand(const OnDemandInput& in, BillingMode mode, OnDemandSite site,
                     std::string_view index_name = {});

// Sets the members the request gave, leaving the others as they were (UpdateTable merges).
void ApplyOnDemand(const OnDemandInput& in, OnDemandThroughput& on_demand);

// StreamSpecification as sent.
struct StreamInput {
  bool enabled = false;
  std::optional<StreamViewType> view_type;
};

struct TableSettingsInput {
  std::optional<BillingMode> billing_mode;
  std::optional<ThroughputInput> throughput;
  std::optional<OnDemandInput> on_demand;
  std::optional<SseDescription> sse;
  std::optional<std::string_view> table_class;
  std::optional<bool> deletion_protection;
  std::optional<StreamInput> stream;
};

// DynamoDB's rules for a StreamSpecification and its effect: enabling starts a new stream
// (id `new_stream_id`, created `now_ms`), disabling ends the current one. `on_create`:
// CreateTable, where there is no stream to refuse a change against.
Status ApplyStream(const StreamInput& in, bool on_create, uint64_t new_stream_id, int64_t now_ms,
                   TableDef& table);

// Reads BillingMode, ProvisionedThroughput, OnDemandThroughput, SSESpecification, TableClass,
// DeletionProtectionEnabled and StreamSpecification; envelope violations go to `errors`.
Result<TableSettingsInput> ReadTableSettings(wire::JsonObject body, std::string_view region,
                                             wire::ConstraintErrors& errors);

// AttributeDefinitions ([{AttributeName, AttributeType}]); `required` for CreateTable.
Result<std::vector<AttributeDefinition>> ReadAttributeDefinitions(wire::JsonObject body,
                                                                  bool required,
                                                                  wire::ConstraintErrors& errors);

// One element of a KeySchema as sent ("HASH"/"RANGE" unchecked beyond the enum).
struct KeySchemaInput {
  std::string name;
  std::string key_type;
};

// Reads the KeySchema member of `object` (a table's or an index's): 1..`max_elements`
// elements (2, or 8 for a GSI's multi-attribute keys), names of 1..255 characters. `path` is its
// envelope path ("keySchema", "…member.keySchema").
Result<std::vector<KeySchemaInput>> ReadKeySchema(wire::JsonObject object, const std::string& path,
                                                  size_t max_elements,
                                                  wire::ConstraintErrors& errors);

// Checks an attribute name of a key schema (1..255 characters).
void CheckKeyAttributeName(std::optional<std::string_view> name, const std::string& path,
                           wire::ConstraintErrors& errors);

// A ProvisionedThroughput-shaped member (`member`: ProvisionedThroughput, or a restore's
// ProvisionedThroughputOverride); nullopt if absent. Violations go to `errors`.
Result<std::optional<ThroughputInput>> ReadThroughput(
    wire::JsonObject body, wire::ConstraintErrors& errors,
    std::string_view member = "ProvisionedThroughput");
// An SSESpecification-shaped member (or a restore's SSESpecificationOverride).
Result<std::optional<SseDescription>> ReadSse(wire::JsonObject body, std::string_view region,
                                              wire::ConstraintErrors& errors,
                                              std::string_view member = "SSESpecification");

// DynamoDB's billing-mode/throughput consistency rules for the resulting mode.
Status CheckThroughputForMode(BillingMode mode, const std::optional<ThroughputInput>& throughput);

}  // namespace ddbd::server::ops
