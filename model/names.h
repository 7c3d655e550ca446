// The names ddbd's own API gives things — namespaces, snapshots, stream triggers: 1 to 64
// characters of A-Z, a-z, 0-9, '_', '.' and '-', so that one never meets an isolation scope
// ("key/region") or needs quoting in a path.
//
// Entry point: IsControlName. Pure; thread-safe.
#pragma once

#include <algorithm>
#include <string_view>

namespace ddbd {

inline bool IsControlName(std::string_view name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
  });
}

}  // namespace ddbd
