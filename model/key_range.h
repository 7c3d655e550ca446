// SortKeyRange: which sort keys of one partition a Query reads — what the key condition
// allows, as bounds on the sort key. Expressions derive it from a KeyConditionExpression;
// storage turns it into iterator bounds.
#pragma once

#include <optional>
#include <string>

#include "model/attribute_value.h"

namespace ddbd {

// Absent bounds are open. `prefix` (S or B sort keys) selects the sort keys that begin with
// it, within the other bounds.
struct SortKeyRange {
  struct Bound {
    AttributeValue value;
    bool inclusive = true;
  };
  std::optional<Bound> lower;
  std::optional<Bound> upper;
  std::optional<std::string> prefix;
};

}  // namespace ddbd
