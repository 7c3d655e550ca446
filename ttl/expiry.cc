// Time to Live's expiry rule.
#include "ttl/expiry.h"

#include <cstdio>

namespace ddbd::ttl {
namespace {

// DynamoDB leaves items whose expiry lies more than five years in the past alone.
constexpr int64_t kFiveYearsMs = int64_t{5} * 36525 * 864 * 1000;  // 5 × 365.25 days

// Epoch milliseconds as a Number of seconds ("1764470000.123").
Number SecondsOf(int64_t ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%lld.%03lld", static_cast<long long>(ms / 1000),
                static_cast<long long>(ms % 1000));
  return Number::Parse(text).value();
}

}  // namespace

const AttributeValue* ExpiryOf(const AttributeMap& item, std::string_view attribute) {
  auto it = item.find(attribute);
  if (it == item.end() || it->second.type() != AttributeType::kN) return nullptr;
  return &it->second;
}

ExpiryWindow::ExpiryWindow(int64_t now_ms)
    : earliest_(SecondsOf(now_ms - kFiveYearsMs)), now_(SecondsOf(now_ms)) {}

bool ExpiryWindow::Expired(const AttributeMap& item, std::string_view attribute) const {
  const AttributeValue* value = ExpiryOf(item, attribute);
  if (!value) return false;
  auto expiry = Number::Parse(value->scalar());
  if (!expiry.ok()) return false;
  return *expiry < now_ && *expiry >= earliest_;
}

AttributeValue ExpiryWindow::earliest() const {
  return AttributeValue::NumberText(earliest_.ToString());
}

AttributeValue ExpiryWindow::now() const { return AttributeValue::NumberText(now_.ToString()); }

bool IsExpired(const AttributeMap& item, std::string_view attribute, int64_t now_ms) {
  return ExpiryWindow(now_ms).Expired(item, attribute);
}

}  // namespace ddbd::ttl
