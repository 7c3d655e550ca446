// File-descriptor budget: raising RLIMIT_NOFILE and splitting it.
#include "server/file_limits.h"

#include <sys/resource.h>

#include <algorithm>

namespace ddbd::server {

FileBudget SplitFileLimit(uint64_t open_files) {
  const int64_t limit = static_cast<int64_t>(std::min<uint64_t>(open_files, 1 << 30));
  FileBudget budget;
  budget.storage_files = static_cast<int>(std::clamp<int64_t>(limit / 4, 16, kMaxStorageFiles));
  budget.max_connections = static_cast<int>(
      std::clamp<int64_t>(limit - budget.storage_files - kSpareFiles, 1, kMaxDefaultConnections));
  return budget;
}

uint64_t RaiseOpenFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1024;
  constexpr rlim_t kCeiling = 1 << 20;
  const rlim_t wanted =
      limit.rlim_max == RLIM_INFINITY ? kCeiling : std::min(limit.rlim_max, kCeiling);
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < wanted) {
    rlimit raised = limit;
    raised.rlim_cur = wanted;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  return limit.rlim_cur == RLIM_INFINITY ? kCeiling : limit.rlim_cur;
}

}  // namespace ddbd::server
