// The local S3 that exports, imports and bulk operations read and write: objects named by
// bucket and key. Three stores keep them — a directory (s3://bucket/key is the file
// DIR/bucket/key), memory (with --in-memory), or an S3-compatible server (--s3-endpoint) —
// behind one interface, so that the jobs never know which.
//
// A bucket is a directory (or a map) that must exist before an import or a bulk operation
// reads from it, as in S3; writing an object creates its bucket (an export needs no
// preparation on a developer's machine).
//
// Entry points: ObjectStore, OpenDirectoryStore, NewMemoryStore.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.h"

namespace ddbd::objects {

struct ObjectEntry {
  std::string key;
  uint64_t size = 0;
};

class ObjectStore {
 public:
  virtual ~ObjectStore() = default;

  // Whether the bucket exists (an import or bulk operation from a missing one fails with
  // S3NoSuchBucket, as in DynamoDB).
  virtual Result<bool> HasBucket(std::string_view bucket) = 0;
  // Stores `bytes` as the object, replacing any; creates the bucket. Readers never see a
  // partly written object.
  virtual Status Put(std::string_view bucket, std::string_view key, std::string_view bytes) = 0;
  // The object's bytes; ResourceNotFound when there is no such object.
  virtual Result<std::string> Get(std::string_view bucket, std::string_view key) = 0;
  // Every object whose key starts with `prefix`, in key order (bytes, as S3 lists them).
  virtual Result<std::vector<ObjectEntry>> List(std::string_view bucket,
                                                std::string_view prefix) = 0;
  // Where the objects are, for the log: "directory DIR", "memory", "endpoint URL".
  virtual std::string Describe() const = 0;
};

// Checks that a key can name an object: 1 to 1024 bytes, and — for the directory store —
// no empty, "." or ".." segment (which no file name can stand for).
Status CheckObjectKey(std::string_view key);

std::unique_ptr<ObjectStore> OpenDirectoryStore(std::filesystem::path root);
std::unique_ptr<ObjectStore> NewMemoryStore();

}  // namespace ddbd::objects
