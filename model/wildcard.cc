// Wildcard matching.
#include "model/wildcard.h"

#include <cctype>

namespace ddbd {
namespace {

bool SameCharacter(char a, char b, bool ignore_case) {
  if (!ignore_case) return a == b;
  return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
}

}  // namespace

bool WildcardMatch(std::string_view pattern, std::string_view text, WildcardSyntax syntax) {
  size_t p = 0, t = 0, star = std::string_view::npos, resume = 0;
  while (t < text.size()) {
    const bool one = p < pattern.size() && pattern[p] == '?' && syntax.question_mark;
    if (p < pattern.size() &&
        (one || (pattern[p] != '*' && SameCharacter(pattern[p], text[t], syntax.ignore_case)))) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace ddbd
