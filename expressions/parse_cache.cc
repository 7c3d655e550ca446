// Parse cache: one map per expression shape, bounded by entry count. When a map is full it
// is cleared and refilled — simpler than LRU bookkeeping and just as good for the small,
// stable working sets applications have.
#include "expressions/parse_cache.h"

#include <mutex>
#include <string>
#include <unordered_map>

namespace ddbd::expressions {
namespace {

constexpr size_t kMaxEntries = 4096;

template <typename T>
class Cache {
 public:
  template <typename ParseFn>
  Result<std::shared_ptr<const T>> Get(std::string_view text, uint8_t kind, ParseFn parse) {
    std::string key(1, static_cast<char>(kind));
    key += text;
    {
      std::lock_guard lock(mutex_);
      auto it = entries_.find(key);
      if (it != entries_.end()) return it->second;
    }
    DDBD_ASSIGN_OR_RETURN(T parsed, parse());
    auto shared = std::make_shared<const T>(std::move(parsed));
    std::lock_guard lock(mutex_);
    if (entries_.size() >= kMaxEntries) entries_.clear();
    entries_.emplace(std::move(key), shared);
    return std::shared_ptr<const T>(std::move(shared));
  }

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const T>> entries_;
};

}  // namespace

Result<std::shared_ptr<const Condition>> ParsedCondition(std::string_view text,
                                                         ExpressionKind kind) {
  static Cache<Condition> cache;
  return cache.Get(text, static_cast<uint8_t>(kind), [&] { return ParseCondition(text, kind); });
}

Result<std::shared_ptr<const UpdateExpression>> ParsedUpdate(std::string_view text) {
  static Cache<UpdateExpression> cache;
  return cache.Get(text, 0, [&] { return ParseUpdate(text); });
}

Result<std::shared_ptr<const ProjectionExpression>> ParsedProjection(std::string_view text) {
  static Cache<ProjectionExpression> cache;
  return cache.Get(text, 0, [&] { return ParseProjection(text); });
}

}  // namespace ddbd::expressions
