// The directory object store (the default, `--s3-root DIR`): s3://bucket/key is the file
// DIR/bucket/key. An object is written to a temporary file beside it and renamed into place,
// so a reader (or a crash) never sees half an object.
#include <algorithm>
#include <atomic>
#include <fstream>
#include <sstream>
#include <system_error>

#include "objects/object_store.h"

namespace ddbd::objects {
namespace {

namespace fs = std::filesystem;

// Temporary files end so; List never shows them.
constexpr std::string_view kPartialSuffix = ".ddbd-partial";

Error FileError(std::string_view what, const fs::path& path, const std::error_code& error) {
  return Error::Internal(std::string(what) + " " + path.string() + ": " + error.message());
}

class DirectoryStore final : public ObjectStore {
 public:
  explicit DirectoryStore(fs::path root) : root_(std::move(root)) {}

  Result<bool> HasBucket(std::string_view bucket) override {
    std::error_code error;
    const bool exists = fs::is_directory(BucketPath(bucket), error);
    if (error && error != std::errc::no_such_file_or_directory) {
      return FileError("cannot read", BucketPath(bucket), error);
    }
    return exists;
  }

  Status Put(std::string_view bucket, std::string_view key, std::string_view bytes) override {
    DDBD_RETURN_IF_ERROR(CheckObjectKey(key));
    const fs::path path = BucketPath(bucket) / fs::path(std::string(key));
    std::error_code error;
    fs::create_directories(path.parent_path(), error);
    if (error) return FileError("cannot create", path.parent_path(), error);
    fs::path partial = path;
    partial += std::string(kPartialSuffix) + std::to_string(++partials_);
    {
      std::ofstream out(partial, std::ios::binary | std::ios::trunc);
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      out.flush();
      if (!out) {
        fs::remove(partial, error);
        return Error::Internal("cannot write " + partial.string());
      }
    }
    fs::rename(partial, path, error);
    if (error) {
      std::error_code ignored;
      fs::remove(partial, ignored);
      return FileError("cannot write", path, error);
    }
    return OkStatus();
  }

  Result<std::string> Get(std::string_view bucket, std::string_view key) override {
    DDBD_RETURN_IF_ERROR(CheckObjectKey(key));
    const fs::path path = BucketPath(bucket) / fs::path(std::string(key));
    std::ifstream in(path, std::ios::binary);
    if (!in || fs::is_directory(path)) {
      return Error::ResourceNotFound("No such object: s3://" + std::string(bucket) + "/" +
                                     std::string(key));
    }
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return std::move(bytes).str();
  }

  Result<std::vector<ObjectEntry>> List(std::string_view bucket, std::string_view prefix) override {
    std::vector<ObjectEntry> entries;
    const fs::path bucket_path = BucketPath(bucket);
    // Walk only the deepest folder the prefix names whole.
    const size_t slash = prefix.rfind('/');
    const fs::path start = slash == std::string_view::npos
                               ? bucket_path
                               : bucket_path / fs::path(std::string(prefix.substr(0, slash)));
    std::error_code error;
    if (!fs::is_directory(start, error)) return entries;
    fs::recursive_directory_iterator it(start, error), end;
    for (; !error && it != end; it.increment(error)) {
      if (!it->is_regular_file(error)) continue;
      std::string key = it->path().lexically_relative(bucket_path).generic_string();
      if (!key.starts_with(prefix) || key.find(kPartialSuffix) != std::string::npos) continue;
      entries.push_back({std::move(key), static_cast<uint64_t>(it->file_size(error))});
    }
    if (error) return FileError("cannot list", start, error);
    std::sort(entries.begin(), entries.end(),
              [](const ObjectEntry& a, const ObjectEntry& b) { return a.key < b.key; });
    return entries;
  }

  std::string Describe() const override { return "directory " + root_.string(); }

 private:
  fs::path BucketPath(std::string_view bucket) const { return root_ / std::string(bucket); }

  fs::path root_;
  std::atomic<uint64_t> partials_{0};
};

}  // namespace

Status CheckObjectKey(std::string_view key) {
  if (key.empty() || key.size() > 1024) {
    return Error::Validation("An object key must be 1 to 1024 bytes long");
  }
  size_t begin = 0;
  while (begin <= key.size()) {
    const size_t end = std::min(key.find('/', begin), key.size());
    const std::string_view segment = key.substr(begin, end - begin);
    if (segment.empty() || segment == "." || segment == "..") {
      return Error::Validation("The object key '" + std::string(key) +
                               "' has an empty, '.' or '..' segment, which ddbd cannot store");
    }
    begin = end + 1;
  }
  return OkStatus();
}

std::unique_ptr<ObjectStore> OpenDirectoryStore(std::filesystem::path root) {
  return std::make_unique<DirectoryStore>(std::move(root));
}

}  // namespace ddbd::objects
