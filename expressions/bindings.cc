// Placeholder resolution and the checks that need the request's values.
#include "expressions/bindings.h"

#include <algorithm>
#include <optional>

#include "model/number.h"

namespace ddbd::expressions {
namespace {

// The type an operand is known to yield before any item is read: a :value's type, or N for
// size(...). nullopt for a path (or a function of one whose type depends on the item).
std::optional<AttributeType> ConstantType(const Operand& operand, const Bindings& bindings) {
  if (operand.kind == Operand::Kind::kValue) return bindings.Value(operand.placeholder).type();
  if (operand.kind == Operand::Kind::kSize) return AttributeType::kN;
  return std::nullopt;
}

Error IncorrectOperandType(ExpressionKind kind, std::string_view function, std::string_view type) {
  return InvalidExpression(kind,
                           "Incorrect operand type for operator or function; operator or "
                           "function: " +
                               std::string(function) + ", operand type: " + std::string(type));
}

std::string_view ComparatorText(Comparator comparator) {
  switch (comparator) {
    case Comparator::kEq:
      return "=";
    case Comparator::kNe:
      return "<>";
    case Comparator::kLt:
      return "<";
    case Comparator::kLe:
      return "<=";
    case Comparator::kGt:
      return ">";
    case Comparator::kGe:
      return ">=";
  }
  return "=";
}

// Ordering comparisons and BETWEEN take strings, numbers and binaries: a constant of another
// type is refused before any item is read (an item attribute of another type just compares
// false). Pinned by: test_expression_errors.py::test_constant_operand_types
Status CheckOrderedOperands(const Condition& condition, std::string_view function,
                            const Bindings& bindings, ExpressionKind kind) {
  for (const auto& operand : condition.operands) {
    auto type = ConstantType(operand, bindings);
    if (type && *type != AttributeType::kS && *type != AttributeType::kN &&
        *type != AttributeType::kB) {
      return IncorrectOperandType(kind, function, TypeName(*type));
    }
  }
  return OkStatus();
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

// How two document paths of one expression relate.
enum class PathRelation { kIndependent, kOverlap, kConflict };

// "overlap": one is the other or a prefix of it (a and a, a and a.b); "conflict": they agree
// up to a step that is a list index in one and a map key in the other (l.b and l[1]).
PathRelation Relate(const ResolvedPath& a, const ResolvedPath& b) {
  const size_t common = std::min(a.size(), b.size());
  for (size_t i = 0; i < common; ++i) {
    if (a[i].is_index() != b[i].is_index()) return PathRelation::kConflict;
    if (!(a[i] == b[i])) return PathRelation::kIndependent;
  }
  return PathRelation::kOverlap;
}

// DynamoDB refuses two paths of one expression that overlap or conflict.
// Pinned by: test_expression_errors.py (update-overlap, update-conflict, projection-*)
Status CheckNoOverlap(const std::vector<ResolvedPath>& earlier, const ResolvedPath& path,
                      ExpressionKind kind) {
  for (const auto& other : earlier) {
    const PathRelation relation = Relate(other, path);
    if (relation == PathRelation::kIndependent) continue;
    return InvalidExpression(kind,
                             std::string("Two document paths ") +
                                 (relation == PathRelation::kConflict ? "conflict" : "overlap") +
                                 " with each other; must remove or rewrite one of these "
                                 "paths; path one: " +
                                 PathForMessage(other) + ", path two: " + PathForMessage(path));
  }
  return OkStatus();
}

// "a = a", "contains(a, a)": DynamoDB refuses a comparison or two-operand function whose
// operands are the same path.
Status CheckDistinct(const Condition& condition, std::string_view function,
                     const Bindings& bindings, ExpressionKind kind) {
  if (condition.operands.size() != 2 || condition.operands[0].kind != Operand::Kind::kPath ||
      condition.operands[1].kind != Operand::Kind::kPath) {
    return OkStatus();
  }
  const ResolvedPath first = bindings.Resolve(condition.operands[0].path);
  if (!(first == bindings.Resolve(condition.operands[1].path))) return OkStatus();
  return InvalidExpression(kind,
                           "The first operand must be distinct from the remaining operands "
                           "for this operator or function; operator: " +
                               std::string(function) + ", first operand: " + PathForMessage(first));
}

std::string_view FunctionName(Condition::Kind kind) {
  switch (kind) {
    case Condition::Kind::kBeginsWith:
      return "begins_with";
    case Condition::Kind::kContains:
      return "contains";
    case Condition::Kind::kAttributeType:
      return "attribute_type";
    default:
      return "";
  }
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
      return InvalidExpression(kind,
                               "An expression attribute name used in the document path is "
                               "not defined; attribute name: " +
                                   element.name);
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
        return InvalidExpression(kind,
                                 "An expression attribute value used in expression is not "
                                 "defined; attribute value: " +
                                     operand.placeholder);
      }
      used_values_.insert(operand.placeholder);
      return OkStatus();
    default:
      for (const auto& arg : operand.args) DDBD_RETURN_IF_ERROR(BindOperand(arg, kind));
      if (operand.kind == Operand::Kind::kSize && !operand.args.empty()) {
        auto type = ConstantType(operand.args[0], *this);
        if (type && (*type == AttributeType::kN || *type == AttributeType::kBool ||
                     *type == AttributeType::kNull)) {
          return InvalidExpression(kind,
                                   "Incorrect operand type for operator or function; "
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

namespace {

// attribute_type(path, :type): the type operand must be a string naming a DynamoDB type.
Status CheckAttributeTypeOperands(const Condition& condition, const Bindings& bindings,
                                  ExpressionKind kind) {
  if (condition.operands.size() < 2) return OkStatus();
  auto type = ConstantType(condition.operands[1], bindings);
  if (!type) {
    // A path's type is any of them.
    return IncorrectOperandType(kind, "attribute_type", "{NS,SS,L,BS,N,M,B,BOOL,NULL,S}");
  }
  if (*type != AttributeType::kS) {
    return InvalidExpression(kind,
                             "Incorrect operand type for operator or function; "
                             "operator or function: attribute_type, operand type: " +
                                 TypeNameString(*type));
  }
  const std::string& name = bindings.Value(condition.operands[1].placeholder).scalar();
  static constexpr std::string_view kTypes[] = {"S", "N", "B",  "BOOL", "NULL",
                                                "M", "L", "SS", "NS",   "BS"};
  for (auto known : kTypes) {
    if (known == name) return OkStatus();
  }
  return InvalidExpression(kind, "Invalid attribute type name found; type: " + name +
                                     ", valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}");
}

// BETWEEN with constant bounds: both of one type, and (for ordered types) low <= high.
Status CheckBetweenBounds(const Condition& condition, const Bindings& bindings,
                          ExpressionKind kind) {
  DDBD_RETURN_IF_ERROR(CheckOrderedOperands(condition, "BETWEEN", bindings, kind));
  if (condition.operands[1].kind != Operand::Kind::kValue ||
      condition.operands[2].kind != Operand::Kind::kValue) {
    return OkStatus();
  }
  auto low = ConstantType(condition.operands[1], bindings);
  auto high = ConstantType(condition.operands[2], bindings);
  const AttributeValue& lo = bindings.Value(condition.operands[1].placeholder);
  const AttributeValue& hi = bindings.Value(condition.operands[2].placeholder);
  const std::string bounds = "lower bound operand: AttributeValue: " + ValueForMessage(lo) +
                             ", upper bound operand: AttributeValue: " + ValueForMessage(hi);
  if (*low != *high) {
    return InvalidExpression(kind,
                             "The BETWEEN operator requires same data type for lower "
                             "and upper bounds; " +
                                 bounds);
  }
  const bool ordered =
      *low == AttributeType::kS || *low == AttributeType::kN || *low == AttributeType::kB;
  if (ordered && CompareScalars(lo, hi) > 0) {
    return InvalidExpression(kind,
                             "The BETWEEN operator requires upper bound to be greater "
                             "than or equal to lower bound; " +
                                 bounds);
  }
  return OkStatus();
}

}  // namespace

Status Bindings::CheckOperandTypes(const Condition& condition, ExpressionKind kind) const {
  if (condition.kind == Condition::Kind::kCompare) {
    const std::string_view op = ComparatorText(condition.comparator);
    DDBD_RETURN_IF_ERROR(CheckDistinct(condition, op, *this, kind));
    if (condition.comparator == Comparator::kEq || condition.comparator == Comparator::kNe) {
      return OkStatus();
    }
    return CheckOrderedOperands(condition, op, *this, kind);
  }
  if (!FunctionName(condition.kind).empty()) {
    DDBD_RETURN_IF_ERROR(CheckDistinct(condition, FunctionName(condition.kind), *this, kind));
  }
  switch (condition.kind) {
    case Condition::Kind::kBeginsWith:
      for (const auto& operand : condition.operands) {
        auto type = ConstantType(operand, *this);
        if (type && *type != AttributeType::kS && *type != AttributeType::kB) {
          return InvalidExpression(kind,
                                   "Incorrect operand type for operator or function; "
                                   "operator or function: begins_with, operand type: " +
                                       TypeNameString(*type));
        }
      }
      return OkStatus();
    case Condition::Kind::kAttributeType:
      return CheckAttributeTypeOperands(condition, *this, kind);
    case Condition::Kind::kBetween:
      return CheckBetweenBounds(condition, *this, kind);
    default:
      return OkStatus();
  }
}

namespace {

// DynamoDB's long type names in ADD and DELETE messages.
std::string_view LongTypeName(AttributeType type) {
  switch (type) {
    case AttributeType::kS:
      return "STRING";
    case AttributeType::kN:
      return "NUMBER";
    case AttributeType::kB:
      return "BINARY";
    case AttributeType::kBool:
      return "BOOLEAN";
    case AttributeType::kNull:
      return "NULL";
    case AttributeType::kM:
      return "MAP";
    case AttributeType::kL:
      return "LIST";
    default:
      return "SET";
  }
}

// The constant operands of +, - and list_append must be numbers and lists; ADD takes a number
// or a set, DELETE a set. Checked before any item is read.
// Pinned by: test_expression_errors.py (update-add-string, update-delete-number, ...)
Status CheckUpdateOperands(const UpdateAction& action, const Bindings& bindings) {
  constexpr ExpressionKind kKind = ExpressionKind::kUpdate;
  if (action.kind == UpdateAction::Kind::kAdd || action.kind == UpdateAction::Kind::kDelete) {
    const AttributeType type = bindings.Value(action.value.placeholder).type();
    const bool add = action.kind == UpdateAction::Kind::kAdd;
    const bool set =
        type == AttributeType::kSS || type == AttributeType::kNS || type == AttributeType::kBS;
    if (set || (add && type == AttributeType::kN)) return OkStatus();
    return InvalidExpression(
        kKind,
        std::string("Incorrect operand type for operator or function; "
                    "operator: ") +
            (add ? "ADD" : "DELETE") + ", operand type: " + std::string(LongTypeName(type)) +
            ", typeSet: " + (add ? "ALLOWED_FOR_ADD_OPERAND" : "ALLOWED_FOR_DELETE_OPERAND"));
  }
  std::vector<const Operand*> pending = {&action.value};
  while (!pending.empty()) {
    const Operand* operand = pending.back();
    pending.pop_back();
    const bool arithmetic =
        operand->kind == Operand::Kind::kPlus || operand->kind == Operand::Kind::kMinus;
    const bool append = operand->kind == Operand::Kind::kListAppend;
    for (const auto& arg : operand->args) {
      pending.push_back(&arg);
      auto type = arg.kind == Operand::Kind::kValue
                      ? std::optional(bindings.Value(arg.placeholder).type())
                      : std::nullopt;
      if (!type) continue;
      if (arithmetic && *type != AttributeType::kN) {
        return IncorrectOperandType(kKind, operand->kind == Operand::Kind::kPlus ? "+" : "-",
                                    TypeName(*type));
      }
      if (append && *type != AttributeType::kL) {
        return IncorrectOperandType(kKind, "list_append", TypeName(*type));
      }
    }
  }
  return OkStatus();
}

}  // namespace

Status Bindings::BindUpdate(const UpdateExpression& update) {
  std::vector<ResolvedPath> paths;
  for (const auto& action : update.actions) {
    DDBD_RETURN_IF_ERROR(BindPath(action.path, ExpressionKind::kUpdate));
    if (action.kind != UpdateAction::Kind::kRemove) {
      DDBD_RETURN_IF_ERROR(BindOperand(action.value, ExpressionKind::kUpdate));
      DDBD_RETURN_IF_ERROR(CheckUpdateOperands(action, *this));
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
  // The list echoes the request: past about a kilobyte it ends in "...", so that thousands
  // of unused placeholders do not make a multi-megabyte error body.
  constexpr size_t kListedBytes = 1000;
  auto unused = [](const auto& map, const auto& used) {
    std::string keys;
    for (const auto& [key, value] : map) {
      if (used.count(key)) continue;
      keys += keys.empty() ? "" : ", ";
      if (keys.size() + key.size() > kListedBytes) return keys + "...";
      keys += key;
    }
    return keys;
  };
  std::string names = unused(names_, used_names_);
  if (!names.empty()) {
    return Error::Validation(
        "Value provided in ExpressionAttributeNames unused in expressions: "
        "keys: {" +
        names + "}");
  }
  std::string values = unused(values_, used_values_);
  if (!values.empty()) {
    return Error::Validation(
        "Value provided in ExpressionAttributeValues unused in expressions: "
        "keys: {" +
        values + "}");
  }
  return OkStatus();
}

}  // namespace ddbd::expressions
