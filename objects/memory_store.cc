// The in-memory object store (--in-memory): buckets of objects in ordered maps.
#include <map>
#include <mutex>

#include "objects/object_store.h"

namespace ddbd::objects {
namespace {

class MemoryStore final : public ObjectStore {
 public:
  Result<bool> HasBucket(std::string_view bucket) override {
    std::lock_guard lock(mutex_);
    return buckets_.contains(std::string(bucket));
  }

  Status Put(std::string_view bucket, std::string_view key, std::string_view bytes) override {
    DDBD_RETURN_IF_ERROR(CheckObjectKey(key));
    std::lock_guard lock(mutex_);
    buckets_[std::string(bucket)][std::string(key)] = std::string(bytes);
    return OkStatus();
  }

  Result<std::string> Get(std::string_view bucket, std::string_view key) override {
    std::lock_guard lock(mutex_);
    auto objects = buckets_.find(std::string(bucket));
    if (objects == buckets_.end()) return NoSuchObject(bucket, key);
    auto object = objects->second.find(std::string(key));
    if (object == objects->second.end()) return NoSuchObject(bucket, key);
    return object->second;
  }

  Result<std::vector<ObjectEntry>> List(std::string_view bucket, std::string_view prefix) override {
    std::vector<ObjectEntry> entries;
    std::lock_guard lock(mutex_);
    auto objects = buckets_.find(std::string(bucket));
    if (objects == buckets_.end()) return entries;
    for (auto it = objects->second.lower_bound(std::string(prefix));
         it != objects->second.end() && it->first.starts_with(prefix); ++it) {
      entries.push_back({it->first, it->second.size()});
    }
    return entries;
  }

  std::string Describe() const override { return "memory"; }

 private:
  static Error NoSuchObject(std::string_view bucket, std::string_view key) {
    return Error::ResourceNotFound("No such object: s3://" + std::string(bucket) + "/" +
                                   std::string(key));
  }

  std::mutex mutex_;
  std::map<std::string, std::map<std::string, std::string>> buckets_;
};

}  // namespace

std::unique_ptr<ObjectStore> NewMemoryStore() { return std::make_unique<MemoryStore>(); }

}  // namespace ddbd::objects
