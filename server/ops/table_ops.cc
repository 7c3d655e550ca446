// DescribeTable, DeleteTable and ListTables.
#include "server/ops/common.h"
#include "server/ops/ops.h"
#include "server/ops/replica_changes.h"
#include "server/ops/table_description.h"
#include "server/ops/transient_status.h"

namespace ddbd::server::ops {
namespace {

std::string RenderTable(OpContext& ctx, std::string_view member, const TableDef& table,
                        const storage::TableStats& stats,
                        std::optional<TableStatus> status = std::nullopt) {
  wire::JsonWriter out;
  out.BeginObject().Key(member);
  WriteTableDescription(
      out, table, stats, [&ctx](uint64_t id) { return ctx.db().Stats(id); }, status);
  out.EndObject();
  return out.Take();
}

constexpr int64_t kDefaultListLimit = 100;

// DeleteTable's TableDescription is not DescribeTable's: DynamoDB leaves out the key schema,
// attribute definitions, creation time and indexes, and reports on-demand billing only for
// on-demand tables. Pinned by: test_delete_table.py
std::string RenderDeletedTable(const TableDef& table, const storage::TableStats& stats) {
  wire::JsonWriter out;
  out.BeginObject().Key("TableDescription").BeginObject();
  out.Key("TableName").String(table.name);
  out.Key("TableStatus").String(TableStatusName(TableStatus::kDeleting));
  const Throughput& throughput = table.throughput;
  out.Key("ProvisionedThroughput").BeginObject();
  if (throughput.last_increase_ms) {
    out.Key("LastIncreaseDateTime").EpochSeconds(throughput.last_increase_ms);
  }
  if (throughput.last_decrease_ms) {
    out.Key("LastDecreaseDateTime").EpochSeconds(throughput.last_decrease_ms);
  }
  out.Key("NumberOfDecreasesToday").Int(throughput.decreases_today);
  out.Key("ReadCapacityUnits").Int(throughput.read_capacity_units);
  out.Key("WriteCapacityUnits").Int(throughput.write_capacity_units);
  out.EndObject();
  out.Key("TableSizeBytes").Int(stats.size_bytes);
  out.Key("ItemCount").Int(stats.item_count);
  out.Key("TableArn").String(table.Arn());
  out.Key("TableId").String(table.table_uuid);
  if (table.billing_mode == BillingMode::kPayPerRequest) {
    out.Key("BillingModeSummary").BeginObject();
    out.Key("BillingMode").String("PAY_PER_REQUEST");
    out.Key("LastUpdateToPayPerRequestDateTime").EpochSeconds(table.billing_mode_updated_ms);
    out.EndObject();
  }
  out.EndObject().EndObject();
  return out.Take();
}

}  // namespace

Result<std::string> DescribeTable(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(std::string_view name, ReadOnlyTableName(req.body));
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTableForControl(name));
  return RenderTable(ctx, "Table", *table, ctx.db().Stats(table->id));
}

Result<std::string> DeleteTable(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(std::string_view name, ReadOnlyTableName(req.body));
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTableForControl(name));
  if (table->deletion_protection) {
    return Error::Validation(
        "Resource cannot be deleted as it is currently protected against deletion. Disable "
        "deletion protection first.");
  }
  DDBD_RETURN_IF_ERROR(CheckTableChangeable(*table, /*allow_updating=*/true));
  DDBD_RETURN_IF_ERROR(LeaveGroup(ctx, *table));
  // Rendered before the drop: the statistics go with the table.
  std::string description = RenderDeletedTable(*table, ctx.db().Stats(table->id));
  if (!TransientStatuses(ctx)) {
    DDBD_RETURN_IF_ERROR(DropTable(ctx, *table));
    return description;
  }
  // DELETING for a while: DescribeTable still answers, reads and writes find no table.
  DDBD_ASSIGN_OR_RETURN(auto deleting, ctx.catalog().Modify(table->id, [](TableDef& current) {
    current.status = TableStatus::kDeleting;
    return OkStatus();
  }));
  AfterTransientDelay(ctx,
                      [id = deleting->id](OpContext& later) { FinishTableDeletion(later, id); });
  return description;
}

Result<std::string> ListTables(OpContext& ctx, const Request& req) {
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(auto start, wire::GetString(req.body, "ExclusiveStartTableName"));
  DDBD_ASSIGN_OR_RETURN(auto limit, wire::GetLong(req.body, "Limit"));
  if (limit && *limit < 1) errors.ValueAtLeast(std::to_string(*limit), "limit", 1);
  if (limit && *limit > 100) errors.ValueAtMost(std::to_string(*limit), "limit", 100);
  if (start) errors.TableName(*start, "exclusiveStartTableName");
  DDBD_RETURN_IF_ERROR(errors.ToStatus());

  std::vector<std::string> names = ctx.catalog().ListNames(ctx.scope());
  auto first = start ? std::upper_bound(names.begin(), names.end(), *start) : names.begin();
  const int64_t max = limit.value_or(kDefaultListLimit);
  wire::JsonWriter out;
  out.BeginObject().Key("TableNames").BeginArray();
  int64_t count = 0;
  auto it = first;
  for (; it != names.end() && count < max; ++it, ++count) out.String(*it);
  out.EndArray();
  if (it != names.end() && count > 0) out.Key("LastEvaluatedTableName").String(*(it - 1));
  out.EndObject();
  return out.Take();
}

}  // namespace ddbd::server::ops
