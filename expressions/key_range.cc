// Key conditions: from a bound KeyConditionExpression (or KeyConditions) to the partition and
// sort-key range a Query reads.
#include "expressions/key_range.h"

#include <string>

namespace ddbd::expressions {
namespace {

Error KeyConditionError(std::string_view message) {
  return InvalidExpression(ExpressionKind::kKeyCondition, message);
}

// DynamoDB's key-schema texts carry no "Invalid KeyConditionExpression: " prefix (as
// KeyConditions gets them too). Pinned by: test_start_keys.py::test_key_schema_texts
Error KeySchemaError(std::string message) { return Error::Validation(std::move(message)); }

std::string_view OperatorName(const Condition& c) {
  switch (c.kind) {
    case Condition::Kind::kOr:
      return "OR";
    case Condition::Kind::kNot:
      return "NOT";
    case Condition::Kind::kIn:
      return "IN";
    case Condition::Kind::kAttributeExists:
      return "attribute_exists";
    case Condition::Kind::kAttributeNotExists:
      return "attribute_not_exists";
    case Condition::Kind::kAttributeType:
      return "attribute_type";
    case Condition::Kind::kContains:
      return "contains";
    case Condition::Kind::kCompare:
      return "<>";
    default:
      return "";
  }
}

// The AND-ed simple conditions of a key condition.
Status Flatten(const Condition& condition, std::vector<const Condition*>& leaves) {
  if (condition.kind == Condition::Kind::kAnd) {
    DDBD_RETURN_IF_ERROR(Flatten(condition.children[0], leaves));
    return Flatten(condition.children[1], leaves);
  }
  const bool supported =
      condition.kind == Condition::Kind::kBetween ||
      condition.kind == Condition::Kind::kBeginsWith ||
      (condition.kind == Condition::Kind::kCompare && condition.comparator != Comparator::kNe);
  if (!supported) {
    return KeyConditionError("Invalid operator used in KeyConditionExpression: " +
                             std::string(OperatorName(condition)));
  }
  leaves.push_back(&condition);
  return OkStatus();
}

Comparator Mirror(Comparator c) {
  switch (c) {
    case Comparator::kLt:
      return Comparator::kGt;
    case Comparator::kLe:
      return Comparator::kGe;
    case Comparator::kGt:
      return Comparator::kLt;
    case Comparator::kGe:
      return Comparator::kLe;
    default:
      return c;
  }
}

Status ApplySortCondition(const Condition& c, const Comparator comparator,
                          const std::vector<const AttributeValue*>& values, SortKeyRange& range) {
  if (c.kind == Condition::Kind::kBetween) {
    range.lower = SortKeyRange::Bound{*values[0], true};
    range.upper = SortKeyRange::Bound{*values[1], true};
  } else if (c.kind == Condition::Kind::kBeginsWith) {
    range.prefix = values[0]->scalar();
  } else {
    switch (comparator) {
      case Comparator::kEq:
        range.lower = SortKeyRange::Bound{*values[0], true};
        range.upper = SortKeyRange::Bound{*values[0], true};
        break;
      case Comparator::kLt:
        range.upper = SortKeyRange::Bound{*values[0], false};
        break;
      case Comparator::kLe:
        range.upper = SortKeyRange::Bound{*values[0], true};
        break;
      case Comparator::kGt:
        range.lower = SortKeyRange::Bound{*values[0], false};
        break;
      case Comparator::kGe:
        range.lower = SortKeyRange::Bound{*values[0], true};
        break;
      default:
        break;
    }
  }
  return OkStatus();
}

// One simple condition of a key condition: the key attribute, the comparator seen from the
// attribute's side, and the :values.
struct KeyLeaf {
  const Condition* condition;
  std::string attribute;
  Comparator comparator;
  std::vector<const AttributeValue*> values;
};

Result<KeyLeaf> ReadLeaf(const Condition& c, const Bindings& bindings) {
  const size_t path_index = c.operands[0].kind == Operand::Kind::kPath ? 0 : 1;
  const Operand& key_operand = c.operands[path_index];
  KeyLeaf leaf{&c, {}, path_index == 1 ? Mirror(c.comparator) : c.comparator, {}};
  for (size_t i = 0; i < c.operands.size(); ++i) {
    if (i == path_index) continue;
    if (c.operands[i].kind != Operand::Kind::kValue) {
      return KeySchemaError("Query key condition not supported");
    }
    leaf.values.push_back(&bindings.Value(c.operands[i].placeholder));
  }
  if (key_operand.kind != Operand::Kind::kPath ||
      (c.kind != Condition::Kind::kCompare && path_index != 0)) {
    return KeySchemaError("Query key condition not supported");
  }
  ResolvedPath path = bindings.Resolve(key_operand.path);
  if (path.size() > 1) {
    return KeyConditionError("KeyConditionExpressions cannot have conditions on nested attributes");
  }
  leaf.attribute = path[0].name;
  return leaf;
}

Status CheckTypes(const KeyLeaf& leaf, const KeyElement& key) {
  for (const AttributeValue* value : leaf.values) {
    if (value->type() != ToAttributeType(key.type)) {
      return Error::Validation(
          "One or more parameter values were invalid: Condition parameter "
          "type does not match schema type");
    }
  }
  return OkStatus();
}

bool IsEquality(const KeyLeaf& leaf) {
  return leaf.condition->kind == Condition::Kind::kCompare && leaf.comparator == Comparator::kEq;
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
      return KeySchemaError("RANGE key attributes " + missing +
                            " must have equality conditions "
                            "specified in the query because a condition is present on key "
                            "attribute " +
                            sort[j].key->name);
    }
  }
  return OkStatus();
}

}  // namespace

Result<KeyRange> AnalyzeKeyCondition(const std::vector<KeyElement>& partition_keys,
                                     const std::vector<KeyElement>& sort_keys,
                                     const Condition& key_condition, const Bindings& bindings,
                                     const StartKeyChecks* start_key) {
  std::vector<const Condition*> conditions;
  DDBD_RETURN_IF_ERROR(Flatten(key_condition, conditions));
  if (partition_keys.size() == 1 && sort_keys.size() <= 1 && conditions.size() > 2) {
    return Error::Validation("Conditions can be of length 1 or 2 only");
  }
  size_t non_key_conditions = 0;
  std::vector<KeySlot> on_partition(partition_keys.size());
  std::vector<KeySlot> on_sort(sort_keys.size());
  for (size_t i = 0; i < partition_keys.size(); ++i) on_partition[i].key = &partition_keys[i];
  for (size_t i = 0; i < sort_keys.size(); ++i) on_sort[i].key = &sort_keys[i];
  for (const Condition* c : conditions) {
    DDBD_ASSIGN_OR_RETURN(KeyLeaf leaf, ReadLeaf(*c, bindings));
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
  if (start_key) DDBD_RETURN_IF_ERROR(start_key->size());
  KeyRange range;
  for (const KeySlot& slot : on_partition) {
    if (start_key) DDBD_RETURN_IF_ERROR(start_key->element(*slot.key));
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
    if (start_key) DDBD_RETURN_IF_ERROR(start_key->element(*slot.key));
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
      DDBD_RETURN_IF_ERROR(
          ApplySortCondition(*leaf.condition, leaf.comparator, leaf.values, range.sort));
    }
  }
  return range;
}

}  // namespace ddbd::expressions
