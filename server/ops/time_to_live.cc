// UpdateTimeToLive and DescribeTimeToLive: a table's Time to Live setting. The deletions
// themselves, and the expiry keyspace they read, are the ttl module's (ttl/sweeper.h).
//
// DynamoDB reports a change as ENABLED/DISABLED at once (ENABLING was not observable), and
// then refuses further changes to the table's TTL for about half an hour ("Time to live has
// been modified multiple times within a fixed interval"). That pause is not imitated: test
// suites enable and disable TTL on the same table in quick succession.
#include "server/ops/common.h"
#include "server/ops/ops.h"
#include "server/ops/replica_changes.h"
#include "server/ops/transient_status.h"

namespace ddbd::server::ops {
namespace {

constexpr size_t kMaxAttributeNameLength = 255;

struct TtlChange {
  std::string_view table_name;
  bool enabled = false;
  std::string_view attribute;
};

Result<TtlChange> ReadTtlChange(wire::JsonObject body) {
  TtlChange change;
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(change.table_name, ReadTableName(body, errors));
  DDBD_ASSIGN_OR_RETURN(auto spec, wire::GetObject(body, "TimeToLiveSpecification"));
  if (!spec) {
    errors.NotNull("timeToLiveSpecification");
  } else {
    DDBD_ASSIGN_OR_RETURN(auto attribute, wire::GetString(*spec, "AttributeName"));
    DDBD_ASSIGN_OR_RETURN(auto enabled, wire::GetBool(*spec, "Enabled"));
    constexpr std::string_view kAttributePath = "timeToLiveSpecification.attributeName";
    if (!attribute) {
      errors.NotNull(kAttributePath);
    } else if (attribute->empty()) {
      errors.LengthAtLeast(*attribute, kAttributePath, 1);
    } else if (attribute->size() > kMaxAttributeNameLength) {
      errors.LengthAtMost(*attribute, kAttributePath, kMaxAttributeNameLength);
    }
    if (!enabled) errors.NotNull("timeToLiveSpecification.enabled");
    change.attribute = attribute.value_or("");
    change.enabled = enabled.value_or(false);
  }
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  return change;
}

// The refusals DynamoDB gives for a change that would not change anything, or that names
// another attribute than the enabled one (which must be disabled first).
Status ApplyTtlChange(TableDef& table, const TtlChange& change) {
  if (table.ttl_attribute && *table.ttl_attribute != change.attribute) {
    return Error::Validation(
        "TimeToLive is active on a different AttributeName: current AttributeName is " +
        *table.ttl_attribute);
  }
  if (change.enabled) {
    if (table.ttl_attribute) return Error::Validation("TimeToLive is already enabled");
    table.ttl_attribute = std::string(change.attribute);
  } else {
    if (!table.ttl_attribute) return Error::Validation("TimeToLive is already disabled");
    table.ttl_attribute.reset();
  }
  table.ttl_indexed = false;  // enabled: the backfill sets it; disabled: nothing is indexed
  return OkStatus();
}

}  // namespace

Result<std::string> UpdateTimeToLive(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(TtlChange change, ReadTtlChange(req.body));
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTableForControl(change.table_name));
  DDBD_RETURN_IF_ERROR(CheckTableChangeable(*table, /*allow_updating=*/true));
  auto changed = ctx.catalog().Modify(
      table->id, [&](TableDef& current) { return ApplyTtlChange(current, change); });
  if (!changed.ok()) return std::move(changed).error();
  // A global table's Time to Live is the same in every replica.
  std::vector<uint64_t> tables = {table->id};
  for (const auto& replica : ReplicaTables(ctx, *table)) {
    auto replicated = ctx.catalog().Modify(
        replica->id, [&](TableDef& current) { return ApplyTtlChange(current, change); });
    if (replicated.ok()) tables.push_back(replica->id);
  }
  for (uint64_t id : tables) {
    if (change.enabled) {
      ctx.service().ttl().IndexTable(id);
    } else {
      // Nothing reads the expiries of a table without TTL; enabling it again indexes anew.
      ctx.db().DropExpiries(id).IgnoreError();
    }
  }

  wire::JsonWriter out;
  out.BeginObject().Key("TimeToLiveSpecification").BeginObject();
  out.Key("AttributeName").String(change.attribute).Key("Enabled").Bool(change.enabled);
  out.EndObject().EndObject();
  return out.Take();
}

Result<std::string> DescribeTimeToLive(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(std::string_view name, ReadOnlyTableName(req.body));
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTableForControl(name));

  wire::JsonWriter out;
  out.BeginObject().Key("TimeToLiveDescription").BeginObject();
  if (table->ttl_attribute) out.Key("AttributeName").String(*table->ttl_attribute);
  out.Key("TimeToLiveStatus").String(table->ttl_attribute ? "ENABLED" : "DISABLED");
  out.EndObject().EndObject();
  return out.Take();
}

}  // namespace ddbd::server::ops
