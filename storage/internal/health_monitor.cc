// HealthMonitor: background errors reported, and recovered from with DB::Resume.
#include "storage/internal/health_monitor.h"

#include <algorithm>
#include <cstdio>

#include "model/log.h"

namespace ddbd::storage {
namespace {

class OutOfFilesRetryable : public rocksdb::FileSystemWrapper {
 public:
  using FileSystemWrapper::FileSystemWrapper;
  const char* Name() const override { return "DdbdOutOfFilesRetryable"; }

  rocksdb::IOStatus NewSequentialFile(const std::string& f, const rocksdb::FileOptions& o,
                                      std::unique_ptr<rocksdb::FSSequentialFile>* r,
                                      rocksdb::IODebugContext* d) override {
    return Mark(target()->NewSequentialFile(f, o, r, d));
  }
  rocksdb::IOStatus NewRandomAccessFile(const std::string& f, const rocksdb::FileOptions& o,
                                        std::unique_ptr<rocksdb::FSRandomAccessFile>* r,
                                        rocksdb::IODebugContext* d) override {
    return Mark(target()->NewRandomAccessFile(f, o, r, d));
  }
  rocksdb::IOStatus NewWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                    std::unique_ptr<rocksdb::FSWritableFile>* r,
                                    rocksdb::IODebugContext* d) override {
    return Mark(target()->NewWritableFile(f, o, r, d));
  }
  rocksdb::IOStatus ReopenWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                       std::unique_ptr<rocksdb::FSWritableFile>* r,
                                       rocksdb::IODebugContext* d) override {
    return Mark(target()->ReopenWritableFile(f, o, r, d));
  }
  rocksdb::IOStatus ReuseWritableFile(const std::string& f, const std::string& old,
                                      const rocksdb::FileOptions& o,
                                      std::unique_ptr<rocksdb::FSWritableFile>* r,
                                      rocksdb::IODebugContext* d) override {
    return Mark(target()->ReuseWritableFile(f, old, o, r, d));
  }
  rocksdb::IOStatus NewDirectory(const std::string& name, const rocksdb::IOOptions& o,
                                 std::unique_ptr<rocksdb::FSDirectory>* r,
                                 rocksdb::IODebugContext* d) override {
    return Mark(target()->NewDirectory(name, o, r, d));
  }

 private:
  // The POSIX file system reports errno only as strerror's text ("Too many open files",
  // also the start of ENFILE's "Too many open files in system").
  static rocksdb::IOStatus Mark(rocksdb::IOStatus status) {
    if (status.IsIOError() && status.ToString().find("Too many open files") != std::string::npos) {
      status.SetRetryable(true);
    }
    return status;
  }
};

}  // namespace

std::shared_ptr<rocksdb::FileSystem> RetryWhenOutOfFiles(
    std::shared_ptr<rocksdb::FileSystem> base) {
  return std::make_shared<OutOfFilesRetryable>(std::move(base));
}

void HealthMonitor::Start(rocksdb::DB* db) {
  std::lock_guard lock(mutex_);
  db_ = db;
  thread_ = std::thread([this] { RecoverLoop(); });
}

void HealthMonitor::Stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::optional<std::string> HealthMonitor::Error() const {
  std::lock_guard lock(mutex_);
  return error_;
}

void HealthMonitor::OnBackgroundError(rocksdb::BackgroundErrorReason, rocksdb::Status* error) {
  if (error == nullptr || error->ok()) return;
  {
    std::lock_guard lock(mutex_);
    if (!error_) {
      log::Error("storage error, writes fail until it is recovered: %s", error->ToString().c_str());
    }
    error_ = error->ToString();
  }
  wake_.notify_all();
}

void HealthMonitor::OnErrorRecoveryEnd(const rocksdb::BackgroundErrorRecoveryInfo& info) {
  std::lock_guard lock(mutex_);
  if (info.new_bg_error.ok()) {
    if (error_) log::Info("storage recovered");
    error_.reset();
  }
}

// Resume must not be called from a listener callback (RocksDB holds its mutex there), hence
// the thread. Resume answers OK when RocksDB has recovered on its own meanwhile.
void HealthMonitor::RecoverLoop() {
  std::unique_lock lock(mutex_);
  std::chrono::milliseconds delay = kFirstRetry;
  while (!stopping_) {
    if (!error_) {
      delay = kFirstRetry;
      wake_.wait(lock, [this] { return stopping_ || error_; });
      continue;
    }
    if (wake_.wait_for(lock, delay, [this] { return stopping_; })) break;
    lock.unlock();
    const rocksdb::Status resumed = db_->Resume();
    lock.lock();
    if (resumed.ok()) {
      if (error_) log::Info("storage recovered");
      error_.reset();
    } else {
      if (!resumed.IsBusy()) error_ = resumed.ToString();  // busy: RocksDB is recovering
      delay =
          std::min(delay * 2, std::chrono::duration_cast<std::chrono::milliseconds>(kLastRetry));
    }
  }
}

}  // namespace ddbd::storage
