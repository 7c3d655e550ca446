// Query: the items of one partition, in sort-key order, narrowed by the sort-key condition
// of KeyConditionExpression, then filtered, projected and paged as DynamoDB does.
#include "expressions/evaluator.h"
#include "server/ops/ops.h"
#include "server/ops/read_pager.h"
#include "server/wire/attribute_value_json.h"

namespace ddbd::server::ops {
namespace {

using expressions::Condition;
using expressions::Operand;

struct QueryInput {
  ReadOptions read;
  bool forward = true;
  std::optional<Item> exclusive_start_key;
};

struct KeyRange {
  std::vector<AttributeValue> partition;          // one value per partition attribute
  std::vector<AttributeValue> sort_prefix;        // equalities on leading sort attributes
  SortKeyRange sort;                     // the condition on the next sort attribute
  std::vector<const Condition*> sort_conditions;  // each condition on a sort attribute
};

Error KeyConditionError(std::string_view message) {
  return expressions::InvalidExpression(expressions::ExpressionKind::kKeyCondition, message);
}

// DynamoDB's key-schema texts carry no "Invalid KeyConditionExpression: " prefix (as
// KeyConditions gets them too). Pinned by: test_start_keys.py::test_key_schema_texts
Error KeySchemaError(std::string message) { return Error::Validation(std::move(message)); }

std::string_view OperatorName(const Condition& c) {
  switch (c.kind) {
    case Condition::Kind::kOr: return "OR";
    case Condition::Kind::kNot: return "NOT";
    case Condition::Kind::kIn: return "IN";
    case Condition::Kind::kAttributeExists: return "attribute_exists";
    case Condition::Kind::kAttributeNotExists: return "attribute_not_exists";
    case Condition::Kind::kAttributeType: return "attribute_type";
    case Condition::Kind::kContains: return "contains";
    case Condition::Kind::kCompare: return "<>";
    default: return "";
  }
}

// The AND-ed simple conditions of a key condition.
Status Flatten(const Condition& condition, std::vector<const Condition*>& leaves) {
  if (condition.kind == Condition::Kind::kAnd) {
    DDBD_RETURN_IF_ERROR(Flatten(condition.children[0], leaves));
    return Flatten(condition.children[1], leaves);
  }
  const bool supported =
      condition.kind == Condition::Kind::kBetween || condition.kind == Condition::Kind::kBeginsWith ||
      (condition.kind == Condition::Kind::kCompare &&
       condition.comparator != expressions::Comparator::kNe);
  if (!supported) {
    return KeyConditionError("Invalid operator used in KeyConditionExpression: " +
                             std::string(OperatorName(condition)));
  }
  leaves.push_back(&condition);
  return OkStatus();
}

expressions::Comparator Mirror(expressions::Comparator c) {
  switch (c) {
    case expressions::Comparator::kLt: return expressions::Comparator::kGt;
    case expressions::Comparator::kLe: return expressions::Comparator::kGe;
    case expressions::Comparator::kGt: return expressions::Comparator::kLt;
    case expressions::Comparator::kGe: return expressions::Comparator::kLe;
    default: return c;
  }
}

Status ApplySortCondition(const Condition& c, const expressions::Comparator comparator,
                          const std::vector<const AttributeValue*>& values,
                          SortKeyRange& range) {
  if (c.kind == Condition::Kind::kBetween) {
    range.lower = SortKeyRange::Bound{*values[0], true};
    range.upper = SortKeyRange::Bound{*values[1], true};
  } else if (c.kind == Condition::Kind::kBeginsWith) {
    range.prefix = values[0]->scalar();
  } else {
    switch (comparator) {
      case expressions::Comparator::kEq:
        range.lower = SortKeyRange::Bound{*values[0], true};
        range.upper = SortKeyRange::Bound{*values[0], true};
        break;
      case expressions::Comparator::kLt: range.upper = SortKeyRange::Bound{*values[0], false}; break;
      case expressions::Comparator::kLe: range.upper = SortKeyRange::Bound{*values[0], true}; break;
      case expressions::Comparator::kGt: range.lower = SortKeyRange::Bound{*values[0], false}; break;
      case expressions::Comparator::kGe: range.lower = SortKeyRange::Bound{*values[0], true}; break;
      default: break;
    }
  }
  return OkStatus();
}

// One simple condition of a key condition: the key attribute, the comparator seen from the
// attribute's side, and the :values.
struct KeyLeaf {
  const Condition* condition;
  std::string attribute;
  expressions::Comparator comparator;
  std::vector<const AttributeValue*> values;
};

Result<KeyLeaf> ReadLeaf(const Condition& c, const ExpressionInputs& expr) {
  const size_t path_index = c.operands[0].kind == Operand::Kind::kPath ? 0 : 1;
  const Operand& key_operand = c.operands[path_index];
  KeyLeaf leaf{&c, {}, path_index == 1 ? Mirror(c.comparator) : c.comparator, {}};
  for (size_t i = 0; i < c.operands.size(); ++i) {
    if (i == path_index) continue;
    if (c.operands[i].kind != Operand::Kind::kValue) {
      return KeySchemaError("Query key condition not supported");
    }
    leaf.values.push_back(&expr.bindings.Value(c.operands[i].placeholder));
  }
  if (key_operand.kind != Operand::Kind::kPath ||
      (c.kind != Condition::Kind::kCompare && path_index != 0)) {
    return KeySchemaError("Query key condition not supported");
  }
  expressions::ResolvedPath path = expr.bindings.Resolve(key_operand.path);
  if (path.size() > 1) {
    return KeyConditionError("KeyConditionExpressions cannot have conditions on nested attributes");
  }
  leaf.attribute = path[0].name;
  return leaf;
}

Status CheckTypes(const KeyLeaf& leaf, const KeyElement& key) {
  for (const AttributeValue* value : leaf.values) {
    if (value->type() != ToAttributeType(key.type)) {
      return Error::Validation("One or more parameter values were invalid: Condition parameter "
                               "type does not match schema type");
    }
  }
  return OkStatus();
}

bool IsEquality(const KeyLeaf& leaf) {
  return leaf.condition->kind == Condition::Kind::kCompare &&
         leaf.comparator == expressions::Comparator::kEq;
}

// A key attribute's condition and the schema element it is on.
struct KeySlot {
  const KeyElement* key = nullptr;
  std::optional<KeyLeaf> leaf;
};

// The RANGE attributes a condition names must follow a leading run of equalities:
// "RANGE key attributes b must have equality conditions specified in the query because a
// condition is present on key attribute c" (as DynamoDB words it for multi-attribute GSI
// keys). Pinned by: test_indexes.py::test_multi_attribute_gsi_keys
Status CheckSortSequence(const std::vector<KeySlot>& sort) {
  for (size_t j = 0; j < sort.size(); ++j) {
    if (!sort[j].leaf) continue;
    std::string missing;
    for (size_t i = 0; i < j; ++i) {
      if (sort[i].leaf && IsEquality(*sort[i].leaf)) continue;
      missing += (missing.empty() ? "" : ", ") + sort[i].key->name;
    }
    if (!missing.empty()) {
      return KeySchemaError("RANGE key attributes " + missing + " must have equality conditions "
                            "specified in the query because a condition is present on key "
                            "attribute " + sort[j].key->name);
    }
  }
  return OkStatus();
}

// Turns a bound KeyConditionExpression into a partition and a sort-key range, with
// DynamoDB's rules and messages: every partition attribute compared with =, and conditions
// on a leading run of the sort attributes, all = but the last (multi-attribute GSI keys have
// up to four of each; tables and LSIs one). An ExclusiveStartKey is checked along the way,
// attribute by attribute in key order, as DynamoDB does (CheckStartKeyElement).
Result<KeyRange> AnalyzeKeyCondition(const ReadTarget& target, const ExpressionInputs& expr,
                                     const Item* start_key) {
  const std::vector<KeyElement> partition_keys = target.partition_keys();
  const std::vector<KeyElement> sort_keys = target.sort_keys();
  std::vector<const Condition*> conditions;
  DDBD_RETURN_IF_ERROR(Flatten(*expr.key_condition, conditions));
  if (partition_keys.size() == 1 && sort_keys.size() <= 1 && conditions.size() > 2) {
    return Error::Validation("Conditions can be of length 1 or 2 only");
  }
  size_t non_key_conditions = 0;
  std::vector<KeySlot> on_partition(partition_keys.size());
  std::vector<KeySlot> on_sort(sort_keys.size());
  for (size_t i = 0; i < partition_keys.size(); ++i) on_partition[i].key = &partition_keys[i];
  for (size_t i = 0; i < sort_keys.size(); ++i) on_sort[i].key = &sort_keys[i];
  for (const Condition* c : conditions) {
    DDBD_ASSIGN_OR_RETURN(KeyLeaf leaf, ReadLeaf(*c, expr));
    KeySlot* slot = nullptr;
    for (auto* slots : {&on_partition, &on_sort}) {
      for (KeySlot& candidate : *slots) {
        if (candidate.key->name == leaf.attribute) slot = &candidate;
      }
    }
    if (!slot) {  // DynamoDB reports the key attribute this condition leaves out
      ++non_key_conditions;
      continue;
    }
    if (slot->leaf) {
      return KeyConditionError("KeyConditionExpressions must only contain one condition per key");
    }
    slot->leaf = std::move(leaf);
  }
  if (start_key) DDBD_RETURN_IF_ERROR(CheckStartKeySize(target, *start_key, /*query=*/true));
  KeyRange range;
  for (const KeySlot& slot : on_partition) {
    if (start_key) DDBD_RETURN_IF_ERROR(CheckStartKeyElement(*start_key, *slot.key));
    if (partition_keys.size() == 1 && sort_keys.empty() && conditions.size() > 1) {
      return KeySchemaError("Query key condition not supported");
    }
    if (!slot.leaf) {
      return KeySchemaError("Query condition missed key schema element: " + slot.key->name);
    }
    DDBD_RETURN_IF_ERROR(CheckTypes(*slot.leaf, *slot.key));
    if (!IsEquality(*slot.leaf)) return KeySchemaError("Query key condition not supported");
    range.partition.push_back(*slot.leaf->values[0]);
  }
  for (const KeySlot& slot : on_sort) {
    if (start_key) DDBD_RETURN_IF_ERROR(CheckStartKeyElement(*start_key, *slot.key));
    if (slot.leaf) DDBD_RETURN_IF_ERROR(CheckTypes(*slot.leaf, *slot.key));
  }
  if (non_key_conditions) {
    for (const KeySlot& slot : on_sort) {
      if (!slot.leaf) {
        return KeySchemaError("Query condition missed key schema element: " + slot.key->name);
      }
    }
    return KeySchemaError("Query key condition not supported");
  }
  DDBD_RETURN_IF_ERROR(CheckSortSequence(on_sort));
  for (size_t i = 0; i < on_sort.size() && on_sort[i].leaf; ++i) {
    const KeyLeaf& leaf = *on_sort[i].leaf;
    range.sort_conditions.push_back(leaf.condition);
    if (i + 1 < on_sort.size() && on_sort[i + 1].leaf) {
      range.sort_prefix.push_back(*leaf.values[0]);
    } else {
      DDBD_RETURN_IF_ERROR(ApplySortCondition(*leaf.condition, leaf.comparator, leaf.values,
                                              range.sort));
    }
  }
  return range;
}

// Whether an ExclusiveStartKey lies inside the key condition, with DynamoDB's texts (dynalite
// actions/query.js, recorded against DynamoDB): the sort conditions are checked first, then
// the partition; only the index's key attributes count, not the table's.
// Pinned by: test_start_keys.py::test_query_start_key_checks, test_query_start_key_boundaries
Status CheckStartKeyInside(const ReadTarget& target, const KeyRange& range,
                           const expressions::Bindings& bindings, const Item& start_key) {
  const std::vector<KeyElement> partition_keys = target.partition_keys();
  bool same_partition = true;
  for (size_t i = 0; i < partition_keys.size(); ++i) {
    same_partition &= start_key.at(partition_keys[i].name) == range.partition[i];
  }
  if (range.sort_conditions.empty()) {
    if (same_partition) return OkStatus();
    return Error::Validation("The provided starting key is outside query boundaries based on "
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
      return Error::Validation("Filter Expression can only contain non-primary key attributes: "
                               "Primary key attribute: " + name);
    }
  }
  return OkStatus();
}

Result<QueryInput> ParseQuery(wire::JsonObject body) {
  QueryInput in;
  wire::ConstraintErrors errors;
  DDBD_ASSIGN_OR_RETURN(in.read, ReadReadOptions(body, {.filter = true, .key_condition = true,
                                                         .projection = true},
                                                 errors));
  DDBD_ASSIGN_OR_RETURN(auto forward, wire::GetBool(body, "ScanIndexForward"));
  in.forward = forward.value_or(true);
  if (std::optional<wire::JsonValue> start = wire::Member(body, "ExclusiveStartKey")) {
    DDBD_ASSIGN_OR_RETURN(in.exclusive_start_key, wire::ParseAttributeMap(*start));
  }
  if (!in.read.expressions.key_condition) {
    return Error::Validation("Either the KeyConditions or KeyConditionExpression parameter must "
                             "be specified in the request.");
  }
  return in;
}

}  // namespace

Result<std::string> Query(OpContext& ctx, const Request& req) {
  DDBD_ASSIGN_OR_RETURN(QueryInput in, ParseQuery(req.body));
  DDBD_ASSIGN_OR_RETURN(auto table, ctx.FindTable(in.read.table_name));
  DDBD_ASSIGN_OR_RETURN(ReadTarget target, ResolveTarget(*table, in.read, /*query=*/true));
  const Item* start_key = in.exclusive_start_key ? &*in.exclusive_start_key : nullptr;
  DDBD_ASSIGN_OR_RETURN(KeyRange range,
                        AnalyzeKeyCondition(target, in.read.expressions, start_key));
  DDBD_RETURN_IF_ERROR(CheckFilterAvoidsKeys(target, in.read.expressions));
  std::optional<storage::StartKey> start;
  if (start_key) {
    DDBD_ASSIGN_OR_RETURN(start, StartKeyFor(target, *start_key));
    DDBD_RETURN_IF_ERROR(
        CheckStartKeyInside(target, range, in.read.expressions.bindings, *start_key));
  }
  auto cursor = target.index
                    ? ctx.db().ScanIndexPartition(target.index->id, range.partition,
                                                  range.sort_prefix, range.sort, in.forward, start)
                    : ctx.db().ScanPartition(*table, range.partition[0], range.sort, in.forward,
                                             start);
  return ReadPage(ctx.db(), target, *cursor, in.read);
}

}  // namespace ddbd::server::ops
