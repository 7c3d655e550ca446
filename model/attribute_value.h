// AttributeValue: one DynamoDB value of any of the ten types, and Item, a top-level map of
// attribute names to values. Numbers are held as canonical decimal text (validated by
// Number::Parse before they get here); binaries as raw bytes (base64 is a wire concern).
// Entry points: the typed factories, type(), accessors, operator==, and ItemSize/ValueSize
// (DynamoDB's item-size measure, spec/limits.md §3).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ddbd {

// Stored on disk (item codec): never renumber.
enum class AttributeType : uint8_t {
  kS = 1,
  kN = 2,
  kB = 3,
  kBool = 4,
  kNull = 5,
  kM = 6,
  kL = 7,
  kSS = 8,
  kNS = 9,
  kBS = 10,
};

// The wire name of a type: "S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS".
constexpr std::string_view TypeName(AttributeType type) {
  switch (type) {
    case AttributeType::kS:
      return "S";
    case AttributeType::kN:
      return "N";
    case AttributeType::kB:
      return "B";
    case AttributeType::kBool:
      return "BOOL";
    case AttributeType::kNull:
      return "NULL";
    case AttributeType::kM:
      return "M";
    case AttributeType::kL:
      return "L";
    case AttributeType::kSS:
      return "SS";
    case AttributeType::kNS:
      return "NS";
    case AttributeType::kBS:
      return "BS";
  }
  return "?";
}

class AttributeValue;
using AttributeMap = std::map<std::string, AttributeValue, std::less<>>;
using AttributeList = std::vector<AttributeValue>;

class AttributeValue {
 public:
  AttributeValue() : type_(AttributeType::kNull), value_(std::monostate{}) {}

  static AttributeValue String(std::string s) { return {AttributeType::kS, std::move(s)}; }
  // REQUIRES: `canonical` is Number::ToString() output.
  static AttributeValue NumberText(std::string canonical) {
    return {AttributeType::kN, std::move(canonical)};
  }
  static AttributeValue Binary(std::string bytes) { return {AttributeType::kB, std::move(bytes)}; }
  static AttributeValue Bool(bool b) { return {AttributeType::kBool, b}; }
  static AttributeValue Null() { return {}; }
  static AttributeValue Map(AttributeMap m) { return {AttributeType::kM, std::move(m)}; }
  static AttributeValue List(AttributeList l) { return {AttributeType::kL, std::move(l)}; }
  // REQUIRES: type is kSS, kNS or kBS; members unique (numbers canonical).
  static AttributeValue Set(AttributeType type, std::vector<std::string> members) {
    return {type, std::move(members)};
  }

  AttributeType type() const { return type_; }
  bool is_set() const {
    return type_ == AttributeType::kSS || type_ == AttributeType::kNS ||
           type_ == AttributeType::kBS;
  }
  // S, N (canonical text) and B (raw bytes).
  const std::string& scalar() const { return std::get<std::string>(value_); }
  bool boolean() const { return std::get<bool>(value_); }
  const AttributeMap& map() const { return std::get<AttributeMap>(value_); }
  AttributeMap& mutable_map() { return std::get<AttributeMap>(value_); }
  const AttributeList& list() const { return std::get<AttributeList>(value_); }
  AttributeList& mutable_list() { return std::get<AttributeList>(value_); }
  const std::vector<std::string>& set() const { return std::get<std::vector<std::string>>(value_); }

  // Structural equality. Sets compare as sets (member order is not significant).
  friend bool operator==(const AttributeValue& a, const AttributeValue& b);

 private:
  using Storage = std::variant<std::monostate, std::string, bool, AttributeMap, AttributeList,
                               std::vector<std::string>>;
  template <typename T>
  AttributeValue(AttributeType type, T&& value) : type_(type), value_(std::forward<T>(value)) {}

  AttributeType type_;
  Storage value_;
};

// A whole item: attribute name → value.
class Item : public AttributeMap {
 public:
  using AttributeMap::AttributeMap;
  Item() = default;
  explicit Item(AttributeMap attributes) : AttributeMap(std::move(attributes)) {}
};

inline constexpr size_t kMaxItemBytes = 400 * 1024;
inline constexpr int kMaxNestingDepth = 32;

// DynamoDB's size of one value (spec/limits.md §3).
size_t ValueSize(const AttributeValue& value);
// DynamoDB's size of an item: Σ (UTF-8 name length + value size).
size_t ItemSize(const AttributeMap& item);

}  // namespace ddbd
