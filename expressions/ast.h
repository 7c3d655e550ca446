// The syntax tree of DynamoDB's expressions. Trees are immutable after parsing and hold
// placeholders (#name, :value) unresolved, so one parsed tree can be cached and shared by
// requests with different ExpressionAttributeNames/Values.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ddbd::expressions {

// One step of a document path: an attribute or map key (a bare name or a #placeholder),
// or a list index.
struct PathElement {
  enum class Kind : uint8_t { kName, kNamePlaceholder, kIndex };
  Kind kind = Kind::kName;
  std::string name;   // kName: the name; kNamePlaceholder: "#p"
  int64_t index = 0;  // kIndex
};

struct Path {
  std::vector<PathElement> elements;  // the first element is never an index
};

// Something that yields a value: a path, a :value, or a function or arithmetic over those.
struct Operand {
  enum class Kind : uint8_t {
    kPath,
    kValue,        // :placeholder
    kSize,         // size(operand)
    kIfNotExists,  // if_not_exists(path, operand) — update expressions only
    kListAppend,   // list_append(operand, operand) — update expressions only
    kPlus,         // operand + operand — update expressions only
    kMinus,
  };
  Kind kind = Kind::kPath;
  Path path;                   // kPath
  std::string placeholder;     // kValue: ":v"
  std::vector<Operand> args;   // functions and arithmetic
  size_t position = 0;         // offset in the expression, for messages
  bool parenthesized = false;  // written inside its own parentheses: (a) = :v
};

enum class Comparator : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe };

struct Condition {
  enum class Kind : uint8_t {
    kCompare,  // operands[0] <op> operands[1]
    kBetween,  // operands[0] BETWEEN operands[1] AND operands[2]
    kIn,       // operands[0] IN (operands[1..])
    kAnd,      // children[0] AND children[1]
    kOr,
    kNot,              // NOT children[0]
    kAttributeExists,  // attribute_exists(path)
    kAttributeNotExists,
    kAttributeType,  // attribute_type(path, :type)
    kBeginsWith,     // begins_with(operand, operand)
    kContains,       // contains(operand, operand)
  };
  Kind kind = Kind::kCompare;
  Comparator comparator = Comparator::kEq;
  std::vector<Operand> operands;
  std::vector<Condition> children;
  bool parenthesized = false;  // written inside its own parentheses
};

struct UpdateAction {
  enum class Kind : uint8_t { kSet, kRemove, kAdd, kDelete };
  Kind kind = Kind::kSet;
  Path path;
  Operand value;  // kSet, kAdd, kDelete
};

struct UpdateExpression {
  std::vector<UpdateAction> actions;  // in clause order
};

struct ProjectionExpression {
  std::vector<Path> paths;
};

}  // namespace ddbd::expressions
