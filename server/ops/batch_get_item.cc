// BatchGetItem: read up to 100 items from one or more tables. Keys whose items would take
// the response past 16 MB are returned in UnprocessedKeys, as DynamoDB does.
#include <map>
#include <set>
#include <unordered_set>

#include "expressions/evaluator.h"
#include "server/ops/item_request.h"
#include "server/ops/ops.h"
#include "server/ops/throttling.h"
#include "wire/attribute_value_json.h"

namespace ddbd::server::ops {
namespace {

constexpr size_t kMaxKeys = 100;
constexpr size_t kMaxResponseBytes = 16 * 1024 * 1024;

struct TableRequest {
  std::string_view table_name;
  std::vector<Item> keys;
  std::vector<wire::JsonValue> raw_keys;  // echoed in UnprocessedKeys
  bool consistent_read = false;
  ExpressionInputs expressions;
};

struct BatchGetInput {
  std::vector<TableRequest> tables;
  CapacityDetail capacity = CapacityDetail::kNone;
};

Result<TableRequest> ParseTableRequest(std::string_view table_name, wire::JsonValue json,
                                       wire::ConstraintErrors& errors) {
  TableRequest request;
  request.table_name = table_name;
  const std::string path = "requestItems." + std::string(table_name) + ".member";
  DDBD_ASSIGN_OR_RETURN(wire::JsonObject object, wire::AsObject(json));
  DDBD_ASSIGN_OR_RETURN(auto consistent, wire::GetBool(object, "ConsistentRead"));
  request.consistent_read = consistent.value_or(false);
  DDBD_ASSIGN_OR_RETURN(auto keys, wire::GetArray(object, "Keys"));
  if (!keys) {
    errors.NotNull(path + ".keys");
    return request;
  }
  std::set<std::string> seen;
  bool duplicates = false;
  for (wire::JsonValue key : *keys) {
    DDBD_ASSIGN_OR_RETURN(Item parsed, wire::ParseAttributeMap(key));
    // DynamoDB reports only byte-identical keys as duplicates (1000 and 1e3 are not).
    duplicates |= !seen.insert(simdjson::minify(key)).second;
    request.keys.push_back(std::move(parsed));
    request.raw_keys.push_back(key);
  }
  if (request.keys.empty()) {
    errors.Add(std::nullopt, path + ".keys", "Member must have length greater than or equal to 1");
  } else if (request.keys.size() > kMaxKeys) {
    errors.Add(std::nullopt, "RequestItems." + std::string(table_name) + ".member.Keys",
               "Member must have length less than or equal to 100");
  }
  DDBD_ASSIGN_OR_RETURN(request.expressions, ReadExpressions(object, {.projection = true}));
  if (duplicates) return Error::Validation("Provided list of item keys contains duplicates");
  return request;
}

Result<BatchGetInput> ParseBatchGet(wire::JsonObject body) {
  BatchGetInput in;
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(auto items, wire::GetObject(body, "RequestItems"));
  DDBD_ASSIGN_OR_RETURN(in.capacity, ReadReturnConsumedCapacity(body, errors));
  if (!items) {
    errors.NotNull("requestItems");
    DDBD_RETURN_IF_ERROR(errors.ToStatus());
  }
  size_t total_keys = 0;
  for (auto field : *items) {
    if (field.value.is_null()) continue;
    DDBD_ASSIGN_OR_RETURN(TableRequest request, ParseTableRequest(field.key, field.value, errors));
    total_keys += request.keys.size();
    in.tables.push_back(std::move(request));
  }
  if (in.tables.empty()) {
    errors.LengthAtLeast("{}", "requestItems", 1);
  }
  DDBD_RETURN_IF_ERROR(errors.ToStatus());
  if (total_keys > kMaxKeys) {
    return Error::Validation("Too many items requested for the BatchGetItem call");
  }
  return in;
}

}  // namespace

Result<std::string> BatchGetItem(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(BatchGetInput in, ParseBatchGet(req.body));
  std::vector<std::shared_ptr<const TableDef>> tables;
  std::vector<std::vector<PrimaryKey>> keys;
  for (const auto& request : in.tables) {
    DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTable(request.table_name));
    std::vector<PrimaryKey> table_keys;
    for (const auto& key : request.keys) {
      DDBD_ASSIGN_OR_RETURN(PrimaryKey k, KeyFromParameter(*table, key));
      table_keys.push_back(std::move(k));
    }
    tables.push_back(std::move(table));
    keys.push_back(std::move(table_keys));
  }

  wire::JsonWriter out;
  out.BeginObject().Key("Responses").BeginObject();
  size_t response_bytes = 0;
  std::vector<std::vector<size_t>> unprocessed(in.tables.size());
  std::vector<double> units(in.tables.size(), 0);
  // Keys refused by the throughput limits are left unprocessed; when every key is, the
  // request fails with the first refusal (DynamoDB's rule for a batch throttled throughout).
  std::optional<Error> first_refusal;
  bool any_processed = false;
  for (size_t t = 0; t < in.tables.size(); ++t) {
    out.Key(in.tables[t].table_name).BeginArray();
    // Numerically equal keys (canonical numbers) return their item once.
    std::unordered_set<PrimaryKey, PrimaryKeyHash> fetched;
    for (size_t k = 0; k < keys[t].size(); ++k) {
      if (response_bytes > kMaxResponseBytes) {
        unprocessed[t].push_back(k);
        any_processed = true;
        continue;
      }
      const ReadSite site{tables[t].get(), nullptr, {&keys[t][k].partition, 1}};
      if (Status admitted = AdmitRead(ctx, site); !admitted.ok()) {
        if (!first_refusal) first_refusal = std::move(admitted).error();
        unprocessed[t].push_back(k);
        continue;
      }
      any_processed = true;
      if (!fetched.insert(keys[t][k]).second) continue;
      DDBD_ASSIGN_OR_RETURN(std::optional<std::string> stored,
                            ctx.db().GetStoredItem(*tables[t], keys[t][k]));
      DDBD_ASSIGN_OR_RETURN(size_t bytes, StoredSize(stored));
      const double key_units = ReadUnits(bytes, in.tables[t].consistent_read);
      const uint64_t found = stored ? 1 : 0;
      ChargeRead(ctx, site, key_units,
                 {found, bytes, found, insight::ReadKind::kGet, &in.tables[t].expressions,
                  keys[t][k].sort ? &*keys[t][k].sort : nullptr});
      units[t] += key_units;
      if (!stored) continue;
      response_bytes += bytes;
      DDBD_RETURN_IF_ERROR(WriteStoredItem(out, *stored, in.tables[t].expressions));
    }
    out.EndArray();
  }
  out.EndObject();
  if (first_refusal && !any_processed) return *std::move(first_refusal);
  out.Key("UnprocessedKeys").BeginObject();
  for (size_t t = 0; t < in.tables.size(); ++t) {
    if (unprocessed[t].empty()) continue;
    out.Key(in.tables[t].table_name).BeginObject().Key("Keys").BeginArray();
    for (size_t k : unprocessed[t]) wire::WriteAttributeMap(out, in.tables[t].keys[k]);
    out.EndArray();
    if (in.tables[t].consistent_read) out.Key("ConsistentRead").Bool(true);
    out.EndObject();
  }
  out.EndObject();
  if (in.capacity != CapacityDetail::kNone) {
    out.Key("ConsumedCapacity").BeginArray();
    for (size_t t = 0; t < in.tables.size(); ++t) {
      WriteConsumedCapacity(out, in.capacity, in.tables[t].table_name, units[t], false);
    }
    out.EndArray();
  }
  out.EndObject();
  return out.Take();
}

}  // namespace ddbd::server::ops
