// Condition evaluation and projection.
#include "expressions/evaluator.h"

#include <algorithm>
#include <map>

#include "model/number.h"

namespace ddbd::expressions {
namespace {

bool IsPrefix(const std::string& prefix, const std::string& value) {
  return value.size() >= prefix.size() && value.compare(0, prefix.size(), prefix) == 0;
}

bool SetElementType(AttributeType set, AttributeType element) {
  return (set == AttributeType::kSS && element == AttributeType::kS) ||
         (set == AttributeType::kNS && element == AttributeType::kN) ||
         (set == AttributeType::kBS && element == AttributeType::kB);
}

bool Contains(const AttributeValue& haystack, const AttributeValue& needle) {
  switch (haystack.type()) {
    case AttributeType::kS:
    case AttributeType::kB:
      return needle.type() == haystack.type() &&
             haystack.scalar().find(needle.scalar()) != std::string::npos;
    case AttributeType::kSS:
    case AttributeType::kNS:
    case AttributeType::kBS: {
      if (!SetElementType(haystack.type(), needle.type())) return false;
      const auto& members = haystack.set();
      return std::find(members.begin(), members.end(), needle.scalar()) != members.end();
    }
    case AttributeType::kL: {
      const auto& elements = haystack.list();
      return std::find(elements.begin(), elements.end(), needle) != elements.end();
    }
    default:
      return false;
  }
}

bool CompareOperands(Comparator comparator, const std::optional<AttributeValue>& a,
                     const std::optional<AttributeValue>& b) {
  if (!a || !b) return comparator == Comparator::kNe;
  if (comparator == Comparator::kEq) return *a == *b;
  if (comparator == Comparator::kNe) return !(*a == *b);
  std::optional<int> order = ValueOrder(*a, *b);
  if (!order) return false;
  switch (comparator) {
    case Comparator::kLt:
      return *order < 0;
    case Comparator::kLe:
      return *order <= 0;
    case Comparator::kGt:
      return *order > 0;
    case Comparator::kGe:
      return *order >= 0;
    default:
      return false;
  }
}

// A tree of the paths a projection selects.
struct Selection {
  bool whole = false;
  std::map<std::string, Selection> keys;
  std::map<int64_t, Selection> indexes;
};

std::optional<AttributeValue> Materialize(const AttributeValue& value, const Selection& selection) {
  if (selection.whole) return value;
  if (value.type() == AttributeType::kM && !selection.keys.empty()) {
    AttributeMap out;
    for (const auto& [key, child] : selection.keys) {
      auto it = value.map().find(key);
      if (it == value.map().end()) continue;
      if (auto part = Materialize(it->second, child)) out.emplace(key, std::move(*part));
    }
    if (out.empty()) return std::nullopt;
    return AttributeValue::Map(std::move(out));
  }
  if (value.type() == AttributeType::kL && !selection.indexes.empty()) {
    AttributeList out;
    for (const auto& [index, child] : selection.indexes) {
      if (index >= static_cast<int64_t>(value.list().size())) continue;
      if (auto part = Materialize(value.list()[static_cast<size_t>(index)], child)) {
        out.push_back(std::move(*part));
      }
    }
    if (out.empty()) return std::nullopt;
    return AttributeValue::List(std::move(out));
  }
  return std::nullopt;
}

}  // namespace

const AttributeValue* Lookup(const AttributeMap& item, const ResolvedPath& path) {
  if (path.empty()) return nullptr;
  auto it = item.find(path[0].name);
  if (it == item.end()) return nullptr;
  const AttributeValue* current = &it->second;
  for (size_t i = 1; i < path.size(); ++i) {
    const ResolvedStep& step = path[i];
    if (step.is_index()) {
      if (current->type() != AttributeType::kL) return nullptr;
      const auto& list = current->list();
      if (step.index >= static_cast<int64_t>(list.size())) return nullptr;
      current = &list[static_cast<size_t>(step.index)];
    } else {
      if (current->type() != AttributeType::kM) return nullptr;
      auto child = current->map().find(step.name);
      if (child == current->map().end()) return nullptr;
      current = &child->second;
    }
  }
  return current;
}

std::optional<int> ValueOrder(const AttributeValue& a, const AttributeValue& b) {
  if (a.type() != b.type()) return std::nullopt;
  switch (a.type()) {
    case AttributeType::kN: {
      auto c = Compare(*Number::Parse(a.scalar()), *Number::Parse(b.scalar()));  // found by ADL
      return c < 0 ? -1 : c > 0 ? 1 : 0;
    }
    case AttributeType::kS:
    case AttributeType::kB: {
      int c = a.scalar().compare(b.scalar());
      return c < 0 ? -1 : c > 0 ? 1 : 0;
    }
    default:
      return std::nullopt;
  }
}

std::optional<AttributeValue> EvaluateOperand(const Operand& operand, const AttributeMap& item,
                                              const Bindings& bindings) {
  switch (operand.kind) {
    case Operand::Kind::kPath: {
      const AttributeValue* value = Lookup(item, bindings.Resolve(operand.path));
      if (!value) return std::nullopt;
      return *value;
    }
    case Operand::Kind::kValue:
      return bindings.Value(operand.placeholder);
    case Operand::Kind::kSize: {
      auto value = EvaluateOperand(operand.args[0], item, bindings);
      if (!value) return std::nullopt;
      size_t size = 0;
      switch (value->type()) {
        case AttributeType::kS:
        case AttributeType::kB:
          size = value->scalar().size();
          break;
        case AttributeType::kSS:
        case AttributeType::kNS:
        case AttributeType::kBS:
          size = value->set().size();
          break;
        case AttributeType::kL:
          size = value->list().size();
          break;
        case AttributeType::kM:
          size = value->map().size();
          break;
        default:
          return std::nullopt;
      }
      return AttributeValue::NumberText(std::to_string(size));
    }
    default:
      return std::nullopt;  // update-only operands never reach conditions
  }
}

bool Matches(const Condition& condition, const AttributeMap& item, const Bindings& bindings) {
  auto operand = [&](size_t i) { return EvaluateOperand(condition.operands[i], item, bindings); };
  switch (condition.kind) {
    case Condition::Kind::kAnd:
      return Matches(condition.children[0], item, bindings) &&
             Matches(condition.children[1], item, bindings);
    case Condition::Kind::kOr:
      return Matches(condition.children[0], item, bindings) ||
             Matches(condition.children[1], item, bindings);
    case Condition::Kind::kNot:
      return !Matches(condition.children[0], item, bindings);
    case Condition::Kind::kCompare:
      return CompareOperands(condition.comparator, operand(0), operand(1));
    case Condition::Kind::kBetween: {
      auto value = operand(0), low = operand(1), high = operand(2);
      if (!value || !low || !high) return false;
      auto above = ValueOrder(*value, *low);
      auto below = ValueOrder(*value, *high);
      return above && below && *above >= 0 && *below <= 0;
    }
    case Condition::Kind::kIn: {
      auto value = operand(0);
      if (!value) return false;
      for (size_t i = 1; i < condition.operands.size(); ++i) {
        auto candidate = operand(i);
        if (candidate && *candidate == *value) return true;
      }
      return false;
    }
    case Condition::Kind::kAttributeExists:
      return Lookup(item, bindings.Resolve(condition.operands[0].path)) != nullptr;
    case Condition::Kind::kAttributeNotExists:
      return Lookup(item, bindings.Resolve(condition.operands[0].path)) == nullptr;
    case Condition::Kind::kAttributeType: {
      auto value = operand(0), type = operand(1);
      return value && type && type->type() == AttributeType::kS &&
             TypeName(value->type()) == type->scalar();
    }
    case Condition::Kind::kBeginsWith: {
      auto value = operand(0), prefix = operand(1);
      return value && prefix && value->type() == prefix->type() &&
             (value->type() == AttributeType::kS || value->type() == AttributeType::kB) &&
             IsPrefix(prefix->scalar(), value->scalar());
    }
    case Condition::Kind::kContains: {
      auto haystack = operand(0), needle = operand(1);
      return haystack && needle && Contains(*haystack, *needle);
    }
  }
  return false;
}

Item Project(const AttributeMap& item, const std::vector<ResolvedPath>& paths) {
  std::map<std::string, Selection> roots;
  for (const auto& path : paths) {
    Selection* node = &roots[path[0].name];
    for (size_t i = 1; i < path.size(); ++i) {
      node = path[i].is_index() ? &node->indexes[path[i].index] : &node->keys[path[i].name];
    }
    node->whole = true;
  }
  Item out;
  for (const auto& [name, selection] : roots) {
    auto it = item.find(name);
    if (it == item.end()) continue;
    if (auto part = Materialize(it->second, selection)) out.emplace(name, std::move(*part));
  }
  return out;
}

}  // namespace ddbd::expressions
