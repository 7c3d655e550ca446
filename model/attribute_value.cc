// AttributeValue equality and DynamoDB's size measure.
#include "model/attribute_value.h"

#include <algorithm>

#include "model/number.h"

namespace ddbd {

bool operator==(const AttributeValue& a, const AttributeValue& b) {
  if (a.type_ != b.type_) return false;
  if (!a.is_set()) return a.value_ == b.value_;
  const auto& x = a.set();
  const auto& y = b.set();
  if (x.size() != y.size()) return false;
  return std::all_of(x.begin(), x.end(), [&](const std::string& m) {
    return std::find(y.begin(), y.end(), m) != y.end();
  });
}

namespace {

size_t NumberTextSize(const std::string& canonical) {
  auto parsed = Number::Parse(canonical);
  return parsed.ok() ? parsed->StorageSize() : canonical.size();
}

}  // namespace

size_t ValueSize(const AttributeValue& value) {
  switch (value.type()) {
    case AttributeType::kS:
    case AttributeType::kB:
      return value.scalar().size();
    case AttributeType::kN:
      return NumberTextSize(value.scalar());
    case AttributeType::kBool:
    case AttributeType::kNull:
      return 1;
    case AttributeType::kSS:
    case AttributeType::kBS: {
      size_t total = 0;
      for (const auto& m : value.set()) total += m.size();
      return total;
    }
    case AttributeType::kNS: {
      size_t total = 0;
      for (const auto& m : value.set()) total += NumberTextSize(m);
      return total;
    }
    case AttributeType::kL: {
      size_t total = 3;
      for (const auto& element : value.list()) total += 1 + ValueSize(element);
      return total;
    }
    case AttributeType::kM: {
      size_t total = 3;
      for (const auto& [name, element] : value.map()) total += 1 + name.size() + ValueSize(element);
      return total;
    }
  }
  return 0;
}

size_t ItemSize(const AttributeMap& item) {
  size_t total = 0;
  for (const auto& [name, value] : item) total += name.size() + ValueSize(value);
  return total;
}

}  // namespace ddbd
