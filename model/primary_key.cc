// Order and hash of primary keys.
#include "model/primary_key.h"

#include <functional>
#include <string_view>

#include "model/number.h"

namespace ddbd {
namespace {

size_t Combine(size_t seed, size_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

size_t HashKeyValue(const AttributeValue& value) {
  // Numbers are canonical text, so equal numbers hash equally.
  return Combine(static_cast<size_t>(value.type()), std::hash<std::string_view>()(value.scalar()));
}

}  // namespace

std::strong_ordering CompareKeyValues(const AttributeValue& a, const AttributeValue& b) {
  if (a.type() != b.type()) return a.type() <=> b.type();
  if (a.type() == AttributeType::kN) {
    return Compare(Number::Parse(a.scalar()).value(), Number::Parse(b.scalar()).value());
  }
  // std::string compares char_traits<char>, which orders as unsigned char.
  const int order = a.scalar().compare(b.scalar());
  return order < 0   ? std::strong_ordering::less
         : order > 0 ? std::strong_ordering::greater
                     : std::strong_ordering::equal;
}

std::strong_ordering operator<=>(const PrimaryKey& a, const PrimaryKey& b) {
  if (auto order = CompareKeyValues(a.partition, b.partition); order != 0) return order;
  if (a.sort.has_value() != b.sort.has_value()) return a.sort.has_value() <=> b.sort.has_value();
  if (!a.sort) return std::strong_ordering::equal;
  return CompareKeyValues(*a.sort, *b.sort);
}

size_t PrimaryKeyHash::operator()(const PrimaryKey& key) const {
  size_t hash = HashKeyValue(key.partition);
  return key.sort ? Combine(hash, HashKeyValue(*key.sort)) : hash;
}

size_t ItemIdentityHash::operator()(const ItemIdentity& identity) const {
  return Combine(std::hash<uint64_t>()(identity.table_id), PrimaryKeyHash()(identity.key));
}

}  // namespace ddbd
