// Query: the items of one partition, in sort-key order, narrowed by the sort-key condition
// of KeyConditionExpression, then filtered, projected and paged as DynamoDB does.
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
  AttributeValue partition;
  storage::SortKeyRange sort;
};

Error KeyConditionError(std::string_view message) {
  return expressions::InvalidExpression(expressions::ExpressionKind::kKeyCondition, message);
}

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
                          storage::SortKeyRange& range) {
  using storage::SortKeyRange;
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

// Turns a bound KeyConditionExpression into a partition and a sort-key range, with
// DynamoDB's rules and messages.
Result<KeyRange> AnalyzeKeyCondition(const ReadTarget& target, const ExpressionInputs& expr) {
  const KeyElement& partition_key = target.partition_key();
  const std::optional<KeyElement>& sort_key = target.sort_key();
  std::vector<const Condition*> leaves;
  DDBD_RETURN_IF_ERROR(Flatten(*expr.key_condition, leaves));
  if (leaves.size() > 2) return Error::Validation("Conditions can be of length 1 or 2 only");
  KeyRange range;
  bool have_partition = false, have_sort = false;
  for (const Condition* c : leaves) {
    // One side is the key attribute, the other(s) :values.
    size_t path_index = c->operands[0].kind == Operand::Kind::kPath ? 0 : 1;
    const Operand& key_operand = c->operands[path_index];
    expressions::Comparator comparator =
        path_index == 1 ? Mirror(c->comparator) : c->comparator;
    std::vector<const AttributeValue*> values;
    for (size_t i = 0; i < c->operands.size(); ++i) {
      if (i == path_index) continue;
      if (c->operands[i].kind != Operand::Kind::kValue) {
        return KeyConditionError("Query key condition not supported");
      }
      values.push_back(&expr.bindings.Value(c->operands[i].placeholder));
    }
    if (key_operand.kind != Operand::Kind::kPath ||
        (c->kind != Condition::Kind::kCompare && path_index != 0)) {
      return KeyConditionError("Query key condition not supported");
    }
    expressions::ResolvedPath path = expr.bindings.Resolve(key_operand.path);
    if (path.size() > 1) {
      return KeyConditionError("KeyConditionExpressions cannot have conditions on nested attributes");
    }
    const std::string& name = path[0].name;
    const bool is_partition = name == partition_key.name;
    const bool is_sort = sort_key && name == sort_key->name;
    if (!is_partition && !is_sort) return KeyConditionError("Query key condition not supported");
    if ((is_partition && have_partition) || (is_sort && have_sort)) {
      return KeyConditionError("KeyConditionExpressions must only contain one condition per key");
    }
    const KeyAttributeType type = is_partition ? partition_key.type : sort_key->type;
    for (const AttributeValue* value : values) {
      if (value->type() != ToAttributeType(type)) {
        return Error::Validation("One or more parameter values were invalid: Condition parameter "
                                 "type does not match schema type");
      }
    }
    if (is_partition) {
      if (c->kind != Condition::Kind::kCompare || comparator != expressions::Comparator::kEq) {
        return KeyConditionError("Query key condition not supported");
      }
      have_partition = true;
      range.partition = *values[0];
    } else {
      have_sort = true;
      DDBD_RETURN_IF_ERROR(ApplySortCondition(*c, comparator, values, range.sort));
    }
  }
  if (!have_partition) {
    return KeyConditionError("Query condition missed key schema element: " + partition_key.name);
  }
  return range;
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
    if (name == target.partition_key().name ||
        (target.sort_key() && name == target.sort_key()->name)) {
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
  DDBD_ASSIGN_OR_RETURN(ReadTarget target, ResolveTarget(*table, in.read));
  DDBD_ASSIGN_OR_RETURN(KeyRange range, AnalyzeKeyCondition(target, in.read.expressions));
  DDBD_RETURN_IF_ERROR(CheckFilterAvoidsKeys(target, in.read.expressions));
  std::optional<std::string> start;
  if (in.exclusive_start_key) {
    DDBD_ASSIGN_OR_RETURN(start, StartKeyFor(target, *in.exclusive_start_key));
    if (!(in.exclusive_start_key->at(target.partition_key().name) == range.partition)) {
      return Error::Validation("The provided starting key is outside query boundaries based on "
                               "provided conditions");
    }
  }
  auto cursor = target.index ? ctx.db().ScanIndexPartition(target.index->id, range.partition,
                                                           range.sort, in.forward, start)
                             : ctx.db().ScanPartition(*table, range.partition, range.sort,
                                                      in.forward, start);
  return ReadPage(ctx.db(), target, *cursor, in.read);
}

}  // namespace ddbd::server::ops
