// Contributor Insights: UpdateContributorInsights, DescribeContributorInsights and
// ListContributorInsights, for tables and GSIs, with DynamoDB's statuses, modes and rule
// names. The setting is part of the table's record; what the rules would chart — the most
// accessed and most throttled keys — is in the access-pattern report (GET /ddbd/report).
//
// Behaviour recorded against DynamoDB: ENABLE answers ENABLING and DISABLE DISABLING when they
// change something, for a second or more — in ddbd for --transient-status-ms, and by default
// not at all (settled at once, as tables are ACTIVE at once); either on a settled state is a
// no-op answering it; a mode change is a re-ENABLE (ENABLING again), and ENABLE
// without a mode reverts to ACCESSED_AND_THROTTLED_KEYS; DISABLE echoes the current mode; a
// never-configured table describes as {TableName, ContributorInsightsStatus: DISABLED}; the
// list leaves DISABLED entries out, the table before its GSIs.
#include <algorithm>

#include "server/ops/common.h"
#include "server/ops/ops.h"

namespace ddbd::server::ops {
namespace {

std::string_view ModeName(InsightsMode mode) {
  return mode == InsightsMode::kThrottledKeys ? "THROTTLED_KEYS" : "ACCESSED_AND_THROTTLED_KEYS";
}

// ENABLING/DISABLING while the transient-status delay since the last change runs, then
// ENABLED/DISABLED.
std::string_view StatusOf(OpContext& ctx, const std::optional<ContributorInsights>& insights) {
  if (!insights) return "DISABLED";
  const bool settling =
      ctx.NowMs() < insights->updated_ms + ctx.options().transient_status_delay.count();
  if (insights->enabled) return settling ? "ENABLING" : "ENABLED";
  return settling ? "DISABLING" : "DISABLED";
}

// The table, and the GSI when `index_name` is given: ResourceNotFoundException for a missing
// table and for an index that is not a GSI of it (an LSI, a vector index, no such index).
struct Target {
  std::shared_ptr<const TableDef> table;
  const IndexDef* index = nullptr;
};
Result<Target> FindTarget(OpContext& ctx, std::string_view table_name,
                          const std::optional<std::string_view>& index_name) {
  Target target;
  DDBD_ASSIGN_OR_RETURN(target.table, ctx.FindTableForControl(table_name));
  if (!index_name) return target;
  target.index = target.table->FindIndex(*index_name);
  if (!target.index || target.index->local || target.index->IsVector()) {
    return Error::ResourceNotFound(
        "Requested resource not found: Index: " + std::string(*index_name) +
        " not found for table: " + target.table->name);
  }
  return target;
}

struct TargetRequest {
  std::string_view table_name;
  std::optional<std::string_view> index_name;
};
Result<TargetRequest> ReadTarget(wire::JsonObject body, wire::ConstraintErrors& errors) {
  TargetRequest request;
  DDBD_ASSIGN_OR_RETURN(request.table_name, ReadTableName(body, errors));
  DDBD_ASSIGN_OR_RETURN(request.index_name, wire::GetString(body, "IndexName"));
  if (request.index_name) errors.TableName(*request.index_name, "indexName");
  return request;
}

// "DynamoDBContributorInsights-<rule>-<table>[-<index>]-<ms>": the most accessed (C) and most
// throttled (T) partition keys (PK) and, with a sort key, items (SK).
std::vector<std::string> RuleNames(const Target& target, const ContributorInsights& insights) {
  const bool sorted =
      target.index ? !target.index->sort_keys.empty() : target.table->sort_key.has_value();
  const std::string resource =
      target.table->name + (target.index ? "-" + target.index->name : std::string());
  std::vector<std::string> kinds;
  if (insights.mode == InsightsMode::kAccessedAndThrottledKeys) {
    kinds.push_back("PKC");
    if (sorted) kinds.push_back("SKC");
  }
  kinds.push_back("PKT");
  if (sorted) kinds.push_back("SKT");
  std::vector<std::string> names;
  for (const std::string& kind : kinds) {
    names.push_back("DynamoDBContributorInsights-" + kind + "-" + resource + "-" +
                    std::to_string(insights.rules_created_ms));
  }
  return names;
}

const std::optional<ContributorInsights>& InsightsOf(const Target& target) {
  return target.index ? target.index->contributor_insights : target.table->contributor_insights;
}

void WriteNames(wire::JsonWriter& out, const Target& target) {
  out.Key("TableName").String(target.table->name);
  if (target.index) out.Key("IndexName").String(target.index->name);
}

}  // namespace

Result<std::string> UpdateContributorInsights(OpContext& ctx, const Request& req) {
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(TargetRequest request, ReadTarget(req.body, errors));
  DDBD_ASSIGN_OR_RETURN(auto action,
                        ReadEnum(req.body, "ContributorInsightsAction", "contributorInsightsAction",
                                 {"ENABLE", "DISABLE"}, errors));
  if (!wire::Member(req.body, "ContributorInsightsAction")) {
    errors.NotNull("contributorInsightsAction");
  }
  DDBD_ASSIGN_OR_RETURN(auto mode_name,
                        ReadEnum(req.body, "ContributorInsightsMode", "contributorInsightsMode",
                                 {"ACCESSED_AND_THROTTLED_KEYS", "THROTTLED_KEYS"}, errors));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  DDBD_ASSIGN_OR_RETURN(Target target, FindTarget(ctx, request.table_name, request.index_name));
  const bool enable = *action == "ENABLE";
  if (enable && target.table->status == TableStatus::kCreating) {
    return Error::Validation(
        "Table or Index is not in a valid state to update Key Access Insights: TableStatus must "
        "be ACTIVE to enable ContributorInsights.");
  }
  if (enable && target.index && target.index->status != IndexStatus::kActive) {
    return Error::Validation(
        "Table or Index is not in a valid state to update Key Access Insights: IndexStatus must "
        "be ACTIVE to enable ContributorInsights.");
  }
  const InsightsMode mode = mode_name == "THROTTLED_KEYS" ? InsightsMode::kThrottledKeys
                                                          : InsightsMode::kAccessedAndThrottledKeys;
  const int64_t now = ctx.NowMs();
  const uint64_t index_id = target.index ? target.index->id : 0;
  std::optional<ContributorInsights> after;
  auto changed = ctx.catalog().Modify(target.table->id, [&](TableDef& table) {
    std::optional<ContributorInsights>* insights = &table.contributor_insights;
    for (IndexDef& index : table.indexes) {
      if (index.id == index_id) insights = &index.contributor_insights;
    }
    const bool was_enabled = *insights && (*insights)->enabled;
    if (enable && (!was_enabled || (*insights)->mode != mode)) {
      const int64_t rules = was_enabled ? (*insights)->rules_created_ms : now;
      *insights = ContributorInsights{true, mode, now, rules};
    } else if (!enable && was_enabled) {
      (*insights)->enabled = false;
      (*insights)->updated_ms = now;
    }
    after = *insights;
    return OkStatus();
  });
  if (!changed.ok()) return changed.error();
  wire::JsonWriter out;
  out.BeginObject();
  WriteNames(out, target);
  out.Key("ContributorInsightsStatus").String(StatusOf(ctx, after));
  if (after) out.Key("ContributorInsightsMode").String(ModeName(after->mode));
  out.EndObject();
  return out.Take();
}

Result<std::string> DescribeContributorInsights(OpContext& ctx, const Request& req) {
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(TargetRequest request, ReadTarget(req.body, errors));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  DDBD_ASSIGN_OR_RETURN(Target target, FindTarget(ctx, request.table_name, request.index_name));
  const std::optional<ContributorInsights>& insights = InsightsOf(target);
  wire::JsonWriter out;
  out.BeginObject();
  WriteNames(out, target);
  if (insights && insights->enabled) {
    out.Key("ContributorInsightsRuleList").BeginArray();
    for (const std::string& name : RuleNames(target, *insights)) out.String(name);
    out.EndArray();
  }
  out.Key("ContributorInsightsStatus").String(StatusOf(ctx, insights));
  if (insights) {
    out.Key("LastUpdateDateTime").EpochSeconds(insights->updated_ms);
    out.Key("ContributorInsightsMode").String(ModeName(insights->mode));
  }
  out.EndObject();
  return out.Take();
}

Result<std::string> ListContributorInsights(OpContext& ctx, const Request& req) {
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(auto table_name, wire::GetString(req.body, "TableName"));
  if (table_name && (table_name->empty() || table_name->size() > 1024)) {
    (table_name->empty() ? errors.LengthAtLeast(*table_name, "tableName", 1)
                         : errors.LengthAtMost(*table_name, "tableName", 1024));
  }
  DDBD_ASSIGN_OR_RETURN(auto max_results, wire::GetLong(req.body, "MaxResults"));
  if (max_results && *max_results > 100) {
    errors.ValueAtMost(std::to_string(*max_results), "maxResults", 100);
  }
  DDBD_ASSIGN_OR_RETURN(auto token, wire::GetString(req.body, "NextToken"));
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  std::vector<std::shared_ptr<const TableDef>> tables;
  if (table_name) {
    DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTableForControl(*table_name));
    tables.push_back(std::move(table));
  } else {
    for (auto& table : ctx.catalog().AllTables()) {
      if (table->scope == ctx.scope()) tables.push_back(std::move(table));
    }
    std::sort(tables.begin(), tables.end(),
              [](const auto& a, const auto& b) { return a->name < b->name; });
  }
  std::vector<Target> listed;  // every entry not DISABLED, a table before its GSIs
  for (const auto& table : tables) {
    std::vector<Target> candidates{{table, nullptr}};
    for (const IndexDef& index : table->indexes) {
      if (!index.local && !index.IsVector()) candidates.push_back({table, &index});
    }
    for (Target& candidate : candidates) {
      if (StatusOf(ctx, InsightsOf(candidate)) != "DISABLED") listed.push_back(candidate);
    }
  }
  // The token is the position of the next entry: the list is rebuilt on every call.
  size_t start = 0;
  if (token) {
    const std::string text(*token);
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos ||
        text.size() > 9) {
      return Error::Validation("Invalid NextToken: " + text);
    }
    start = std::min<size_t>(std::stoul(text), listed.size());
  }
  const size_t end = max_results && *max_results > 0 ? std::min(listed.size(), start + *max_results)
                                                     : listed.size();
  wire::JsonWriter out;
  out.BeginObject().Key("ContributorInsightsSummaries").BeginArray();
  for (size_t i = start; i < end; ++i) {
    const std::optional<ContributorInsights>& insights = InsightsOf(listed[i]);
    out.BeginObject();
    WriteNames(out, listed[i]);
    out.Key("ContributorInsightsStatus").String(StatusOf(ctx, insights));
    out.Key("ContributorInsightsMode").String(ModeName(insights->mode));
    out.EndObject();
  }
  out.EndArray();
  if (end < listed.size()) out.Key("NextToken").String(std::to_string(end));
  out.EndObject();
  return out.Take();
}

}  // namespace ddbd::server::ops
