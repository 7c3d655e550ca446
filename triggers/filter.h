// FilterCriteria: Lambda's event filtering over stream records. A record is delivered when it
// matches at least one of the filters' patterns (at most 5, as Lambda's default quota); the
// others are dropped, their positions consumed, as Lambda drops them.
//
// A pattern is Lambda's (EventBridge's) syntax over the record as the handler receives it:
// an object's members must all match (nested objects descend into the record), a member's
// array lists alternatives, each a literal (string, number, true/false, null; "" matches an
// empty string) or an operator object: prefix, suffix, equals-ignore-case (also inside
// prefix and suffix), anything-but (a value, a list, or a prefix/suffix/equals-ignore-case),
// numeric (["<", 10, ">=", 2] …), exists (true/false) and wildcard ("*" for any run). "$or"
// takes a list of patterns. A record member that is an array matches when any element does
// (a string set's members). Numeric operators also compare a string holding a number, since
// DynamoDB's N values are strings in a record.
//
// Entry points: FilterCriteria::Parse, FilterCriteria::Matches.
// Thread-safety: a parsed FilterCriteria is immutable and may be shared.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.h"
#include "wire/json_reader.h"

namespace ddbd::triggers {

inline constexpr size_t kMaxFilters = 5;
inline constexpr size_t kMaxPatternLength = 4096;

struct PatternNode;  // filter.cc

class FilterCriteria {
 public:
  // `patterns`: each filter's Pattern, the JSON text Lambda takes. ValidationException
  // saying which filter and why when one is not a valid pattern.
  static Result<FilterCriteria> Parse(std::vector<std::string> patterns);

  // True when there are no filters or `record` matches one of them.
  bool Matches(wire::JsonValue record) const;
  bool empty() const { return patterns_.empty(); }
  // Each filter's Pattern as given.
  const std::vector<std::string>& patterns() const { return patterns_; }

 private:
  std::vector<std::string> patterns_;
  std::vector<std::shared_ptr<const PatternNode>> parsed_;
};

}  // namespace ddbd::triggers
