// Wildcard patterns: `*` matches any run of characters, and with `question_mark` `?` matches
// any one — IAM's policy wildcards and the `wildcard` operator of Lambda's filter patterns.
// Greedy with backtracking to the last `*`: linear in practice.
//
// Entry point: WildcardMatch. Pure; thread-safe.
#pragma once

#include <string_view>

namespace ddbd {

struct WildcardSyntax {
  bool question_mark = false;  // `?` matches one character
  bool ignore_case = false;    // ASCII letters compared without regard to case
};

// Whether the whole of `text` matches `pattern`.
bool WildcardMatch(std::string_view pattern, std::string_view text, WildcardSyntax syntax = {});

}  // namespace ddbd
