// Time to Live's rule: an item expires when its TTL attribute is a top-level Number of epoch
// seconds below the current time, and not more than five years below it (DynamoDB leaves
// older values alone). Entry points: ExpiryOf, ExpiryWindow, IsExpired.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "model/attribute_value.h"
#include "model/number.h"

namespace ddbd::ttl {

// The item's expiry under TTL on `attribute`: its value when it is a Number; nullopt for a
// missing attribute or one of another type (such items never expire).
const AttributeValue* ExpiryOf(const AttributeMap& item, std::string_view attribute);

// The expiry test at one moment, with its bounds computed once (a pass checks many items).
class ExpiryWindow {
 public:
  explicit ExpiryWindow(int64_t now_ms);
  bool Expired(const AttributeMap& item, std::string_view attribute) const;
  // The bounds as Numbers of epoch seconds: expired expiries lie in [earliest, now).
  AttributeValue earliest() const;
  AttributeValue now() const;

 private:
  Number earliest_;  // five years before now, in seconds
  Number now_;
};

// Whether `item` has expired at `now_ms` (milliseconds since the epoch).
bool IsExpired(const AttributeMap& item, std::string_view attribute, int64_t now_ms);

}  // namespace ddbd::ttl
