// Placeholder resolution and the checks that need the request's values.
#include "expressions/bindings.h"

#include <algorithm>
#include <optional>

#include "model/number.h"

namespace ddbd::expressions {
namespace {

// The type a constant operand yields, if the operand is a constant.
std::optional<AttributeType> ConstantType(const Operand& operand, const Bindings& bindings) {
  if (operand.kind == Operand::Kind::kValue) return bindings.Value(operand.placeholder).type();
  return std::nullopt;
}

// "{N:5}": how DynamoDB prints a scalar operand in BETWEEN messages.
std::string ValueForMessage(const AttributeValue& value) {
  std::string out = "{" + std::string(TypeName(value.type())) + ":";
  switch (value.type()) {
    case AttributeType::kS:
    case AttributeType::kN:
      out += value.scalar();
      break;
    default:
      break;
  }
  return out + "}";
}

int CompareScalars(const AttributeValue& a, const AttributeValue& b) {
  if (a.type() == AttributeType::kN) {
    auto x = Number::Parse(a.scalar());
    auto y = Number::Parse(b.scalar());
    auto c = Compare(*x, *y);
    return c < 0 ? -1 : c > 0 ? 1 : 0;
  }
  int c = a.scalar().compare(b.scalar());
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

std::string TypeNameString(AttributeType type) { return std::string(TypeName(type)); }

// DynamoDB refuses two paths of one expression where one is a prefix of the other:
// "overlap" for a proper prefix, "conflict" for the same path.
Status CheckNoOverlap(const std::vector<ResolvedPath>& earlier, const ResolvedPath& path,
                      ExpressionKind kind) {
  for (const auto& other : earlier) {
    const size_t common = std::min(other.size(), path.size());
    if (!std::equal(path.begin(), path.begin() + static_cast<ptrdiff_t>(common), other.begin())) {
      continue;
    }
    const char* relation = other.size() == path.size() ? "conflict" : "overlap";
    return InvalidExpression(kind, std::string("Two document paths ") + relation +
                                       " with each other; must remove or rewrite one of these "
                                       "paths; path one: " + PathForMessage(other) +
                                       ", path two: " + PathForMessage(path));
  }
  return OkStatus();
}

}  // namespace

std::string PathForMessage(const ResolvedPath& path) {
  std::string out = "[";
  for (size_t i = 0; i < path.size(); ++i) {
    if (i) out += ", ";
    out += path[i].is_index() ? "[" + std::to_string(path[i].index) + "]" : path[i].name;
  }
  return out + "]";
}

ResolvedPath Bindings::Resolve(const Path& path) const {
  ResolvedPath resolved;
  resolved.reserve(path.elements.size());
  for (const auto& element : path.elements) {
    switch (element.kind) {
      case PathElement::Kind::kName:
        resolved.push_back({element.name, -1});
        break;
      case PathElement::Kind::kNamePlaceholder:
        resolved.push_back({names_.find(element.name)->second, -1});
        break;
      case PathElement::Kind::kIndex:
        resolved.push_back({std::string(), element.index});
        break;
    }
  }
  return resolved;
}

const AttributeValue& Bindings::Value(const std::string& placeholder) const {
  return values_.find(placeholder)->second;
}

Status Bindings::BindPath(const Path& path, ExpressionKind kind) {
  for (const auto& element : path.elements) {
    if (element.kind != PathElement::Kind::kNamePlaceholder) continue;
    if (!names_.count(element.name)) {
      return InvalidExpression(kind, "An expression attribute name used in the document path is "
                                     "not defined; attribute name: " + element.name);
    }
    used_names_.insert(element.name);
  }
  return OkStatus();
}

Status Bindings::BindOperand(const Operand& operand, ExpressionKind kind) {
  switch (operand.kind) {
    case Operand::Kind::kPath:
      return BindPath(operand.path, kind);
    case Operand::Kind::kValue:
      if (!values_.count(operand.placeholder)) {
        return InvalidExpression(kind, "An expression attribute value used in expression is not "
                                       "defined; attribute value: " + operand.placeholder);
      }
      used_values_.insert(operand.placeholder);
      return OkStatus();
    default:
      for (const auto& arg : operand.args) DDBD_RETURN_IF_ERROR(BindOperand(arg, kind));
      if (operand.kind == Operand::Kind::kSize && !operand.args.empty()) {
        auto type = ConstantType(operand.args[0], *this);
        if (type && (*type == AttributeType::kN || *type == AttributeType::kBool ||
                     *type == AttributeType::kNull)) {
          return InvalidExpression(kind, "Incorrect operand type for operator or function; "
                                         "operator or function: size, operand type: " +
                                             TypeNameString(*type));
        }
      }
      return OkStatus();
  }
}

Status Bindings::BindCondition(const Condition& condition, ExpressionKind kind) {
  for (const auto& child : condition.children) DDBD_RETURN_IF_ERROR(BindCondition(child, kind));
  for (const auto& operand : condition.operands) DDBD_RETURN_IF_ERROR(BindOperand(operand, kind));
  return CheckOperandTypes(condition, kind);
}

Status Bindings::CheckOperandTypes(const Condition& condition, ExpressionKind kind) const {
  switch (condition.kind) {
    case Condition::Kind::kBeginsWith:
      for (const auto& operand : condition.operands) {
        auto type = ConstantType(operand, *this);
        if (type && *type != AttributeType::kS && *type != AttributeType::kB) {
          return InvalidExpression(kind, "Incorrect operand type for operator or function; "
                                         "operator or function: begins_with, operand type: " +
                                             TypeNameString(*type));
        }
      }
      return OkStatus();
    case Condition::Kind::kAttributeType: {
      if (condition.operands.size() < 2) return OkStatus();
      auto type = ConstantType(condition.operands[1], *this);
      if (type && *type != AttributeType::kS) {
        return InvalidExpression(kind, "Incorrect operand type for operator or function; "
                                       "operator or function: attribute_type, operand type: " +
                                           TypeNameString(*type));
      }
      if (type) {
        const std::string& name = Value(condition.operands[1].placeholder).scalar();
        static constexpr std::string_view kTypes[] = {"S", "N", "B", "BOOL", "NULL",
                                                      "M", "L", "SS", "NS", "BS"};
        bool valid = false;
        for (auto t : kTypes) valid |= t == name;
        if (!valid) {
          return InvalidExpression(kind, "Invalid attribute type name found; type: " + name +
                                             ", valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}");
        }
      }
      return OkStatus();
    }
    case Condition::Kind::kBetween: {
      auto low = ConstantType(condition.operands[1], *this);
      auto high = ConstantType(condition.operands[2], *this);
      if (!low || !high) return OkStatus();
      const AttributeValue& lo = Value(condition.operands[1].placeholder);
      const AttributeValue& hi = Value(condition.operands[2].placeholder);
      const std::string bounds = "lower bound operand: AttributeValue: " + ValueForMessage(lo) +
                                 ", upper bound operand: AttributeValue: " + ValueForMessage(hi);
      if (*low != *high) {
        return InvalidExpression(kind, "The BETWEEN operator requires same data type for lower "
                                       "and upper bounds; " + bounds);
      }
      const bool ordered = *low == AttributeType::kS || *low == AttributeType::kN ||
                           *low == AttributeType::kB;
      if (ordered && CompareScalars(lo, hi) > 0) {
        return InvalidExpression(kind, "The BETWEEN operator requires upper bound to be greater "
                                       "than or equal to lower bound; " + bounds);
      }
      return OkStatus();
    }
    default:
      return OkStatus();
  }
}

Status Bindings::BindUpdate(const UpdateExpression& update) {
  std::vector<ResolvedPath> paths;
  for (const auto& action : update.actions) {
    DDBD_RETURN_IF_ERROR(BindPath(action.path, ExpressionKind::kUpdate));
    if (action.kind != UpdateAction::Kind::kRemove) {
      DDBD_RETURN_IF_ERROR(BindOperand(action.value, ExpressionKind::kUpdate));
    }
    ResolvedPath path = Resolve(action.path);
    DDBD_RETURN_IF_ERROR(CheckNoOverlap(paths, path, ExpressionKind::kUpdate));
    paths.push_back(std::move(path));
  }
  return OkStatus();
}

Status Bindings::BindProjection(const ProjectionExpression& projection) {
  std::vector<ResolvedPath> paths;
  for (const auto& path : projection.paths) {
    DDBD_RETURN_IF_ERROR(BindPath(path, ExpressionKind::kProjection));
    ResolvedPath resolved = Resolve(path);
    DDBD_RETURN_IF_ERROR(CheckNoOverlap(paths, resolved, ExpressionKind::kProjection));
    paths.push_back(std::move(resolved));
  }
  return OkStatus();
}

std::string Bindings::AddGeneratedName(std::string name) {
  // '#' followed by a character no client placeholder may contain cannot collide.
  std::string placeholder = "#-" + std::to_string(generated_++);
  names_.emplace(placeholder, std::move(name));
  used_names_.insert(placeholder);
  return placeholder;
}

std::string Bindings::AddGeneratedValue(AttributeValue value) {
  std::string placeholder = ":-" + std::to_string(generated_++);
  values_.emplace(placeholder, std::move(value));
  used_values_.insert(placeholder);
  return placeholder;
}

Status Bindings::CheckAllUsed() const {
  auto unused = [](const auto& map, const auto& used) {
    std::string keys;
    for (const auto& [key, value] : map) {
      if (used.count(key)) continue;
      keys += keys.empty() ? "" : ", ";
      keys += key;
    }
    return keys;
  };
  std::string names = unused(names_, used_names_);
  if (!names.empty()) {
    return Error::Validation("Value provided in ExpressionAttributeNames unused in expressions: "
                             "keys: {" + names + "}");
  }
  std::string values = unused(values_, used_values_);
  if (!values.empty()) {
    return Error::Validation("Value provided in ExpressionAttributeValues unused in expressions: "
                             "keys: {" + values + "}");
  }
  return OkStatus();
}

}  // namespace ddbd::expressions
