// Query: the items of one partition, in sort-key order, narrowed by the sort-key condition
// of KeyConditionExpression, then filtered, projected and paged as DynamoDB does.
#include "expressions/evaluator.h"
#include "expressions/key_range.h"
#include "server/ops/ops.h"
#include "server/ops/read_pager.h"
#include "server/ops/throttling.h"
#include "wire/attribute_value_json.h"

namespace ddbd::server::ops {
namespace {

using expressions::Condition;
using expressions::Operand;

// Whether an ExclusiveStartKey lies inside the key condition, with DynamoDB's texts (dynalite
// actions/query.js, recorded against DynamoDB): the sort conditions are checked first, then
// the partition; only the index's key attributes count, not the table's.
// Pinned by: test_start_keys.py::test_query_start_key_checks, test_query_start_key_boundaries
Status CheckStartKeyInside(const ReadTarget& target, const expressions::KeyRange& range,
                           const expressions::Bindings& bindings, const Item& start_key) {
  const std::vector<KeyElement> partition_keys = target.partition_keys();
  bool same_partition = true;
  for (size_t i = 0; i < partition_keys.size(); ++i) {
    same_partition &= start_key.at(partition_keys[i].name) == range.partition[i];
  }
  if (range.sort_conditions.empty()) {
    if (same_partition) return OkStatus();
    return Error::Validation(
        "The provided starting key is outside query boundaries based on "
        "provided conditions");
  }
  for (const Condition* c : range.sort_conditions) {
    if (!expressions::Matches(*c, start_key, bindings)) {
      return Error::Validation("The provided starting key does not match the range key predicate");
    }
  }
  if (same_partition) return OkStatus();
  return Error::Validation("The query can return at most one row and cannot be restarted");
}

// Top-level attribute names a condition refers to.
void ReferencedAttributes(const Condition& c, const expressions::Bindings& bindings,
                          std::vector<std::string>& names) {
  std::function<void(const Operand&)> visit = [&](const Operand& operand) {
    if (operand.kind == Operand::Kind::kPath) {
      names.push_back(bindings.Resolve(operand.path)[0].name);
    }
    for (const auto& arg : operand.args) visit(arg);
  };
  for (const auto& operand : c.operands) visit(operand);
  for (const auto& child : c.children) ReferencedAttributes(child, bindings, names);
}

Status CheckFilterAvoidsKeys(const ReadTarget& target, const ExpressionInputs& expr) {
  if (!expr.filter) return OkStatus();
  std::vector<std::string> names;
  ReferencedAttributes(*expr.filter, expr.bindings, names);
  for (const auto& name : names) {
    bool is_key = false;
    for (const auto& key : target.partition_keys()) is_key |= key.name == name;
    for (const auto& key : target.sort_keys()) is_key |= key.name == name;
    if (is_key) {
      return Error::Validation(
          "Filter Expression can only contain non-primary key attributes: "
          "Primary key attribute: " +
          name);
    }
  }
  return OkStatus();
}

}  // namespace

Result<QueryInput> ParseQuery(wire::JsonObject body) {
  QueryInput in;
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(
      in.read,
      ReadReadOptions(body, {.filter = true, .key_condition = true, .projection = true}, errors));
  DDBD_ASSIGN_OR_RETURN(auto forward, wire::GetBool(body, "ScanIndexForward"));
  in.forward = forward.value_or(true);
  if (std::optional<wire::JsonValue> start = wire::Member(body, "ExclusiveStartKey")) {
    DDBD_ASSIGN_OR_RETURN(in.exclusive_start_key, wire::ParseAttributeMap(*start));
  }
  if (!in.read.expressions.key_condition) {
    return Error::Validation(
        "Either the KeyConditions or KeyConditionExpression parameter must "
        "be specified in the request.");
  }
  return in;
}

Result<PageOutput> ExecuteQuery(OpContext& ctx, QueryInput& in) {
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTable(in.read.table_name));
  DDBD_ASSIGN_OR_RETURN(ReadTarget target, ResolveTarget(*table, in.read, /*query=*/true));
  const Item* start_key = in.exclusive_start_key ? &*in.exclusive_start_key : nullptr;
  const expressions::StartKeyChecks start_checks{
      [&] { return CheckStartKeySize(target, *start_key, /*query=*/true); },
      [&](const KeyElement& key) { return CheckStartKeyElement(*start_key, key); }};
  DDBD_ASSIGN_OR_RETURN(
      expressions::KeyRange range,
      expressions::AnalyzeKeyCondition(
          target.partition_keys(), target.sort_keys(), *in.read.expressions.key_condition,
          in.read.expressions.bindings, start_key ? &start_checks : nullptr));
  DDBD_RETURN_IF_ERROR(CheckFilterAvoidsKeys(target, in.read.expressions));
  std::optional<storage::StartKey> start;
  if (start_key) {
    DDBD_ASSIGN_OR_RETURN(start, StartKeyFor(target, *start_key));
    DDBD_RETURN_IF_ERROR(
        CheckStartKeyInside(target, range, in.read.expressions.bindings, *start_key));
  }
  // A Query reads one partition of the table or of the index.
  const ReadSite site{table.get(), target.index, range.partition};
  DDBD_RETURN_IF_ERROR(AdmitRead(ctx, site));
  const std::optional<storage::EntryOverlay> lag = LaggedEntries(ctx, target);
  auto cursor =
      target.index
          ? ctx.db().ScanIndexPartition(target.index->id, range.partition, range.sort_prefix,
                                        range.sort, in.forward, start, lag ? &*lag : nullptr)
          : ctx.db().ScanPartition(*table, range.partition[0], range.sort, in.forward, start);
  DDBD_ASSIGN_OR_RETURN(PageOutput page, ReadPage(ctx.db(), target, *cursor, in.read));
  ChargeRead(ctx, site, page.use,
             {static_cast<uint64_t>(page.scanned), page.bytes_read,
              static_cast<uint64_t>(page.count), insight::ReadKind::kQuery, &in.read.expressions});
  return page;
}

Result<std::string> Query(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(QueryInput in, ParseQuery(req.body));
  DDBD_ASSIGN_OR_RETURN(PageOutput page, ExecuteQuery(ctx, in));
  return RenderPage(page, in.read);
}

}  // namespace ddbd::server::ops
