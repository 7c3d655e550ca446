// HealthMonitor: watches RocksDB for background errors (an I/O error such as running out of
// file descriptors, a full disk), which make it refuse every write until it recovers; reports
// the error in force, and resumes the database in the background, retrying with back-off,
// once the cause has gone. Internal to storage/ (Database::Health is the public face).
//
// Thread-safety: every method may be called concurrently; RocksDB calls the listener
// callbacks from its own threads.
#pragma once

#include <rocksdb/db.h>
#include <rocksdb/file_system.h>
#include <rocksdb/listener.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace ddbd::storage {

// `base`, except that failing to open a file for want of file descriptors (EMFILE, ENFILE)
// is a retryable I/O error: RocksDB then stops writes with a hard error it can resume from
// (and resumes on its own), instead of a fatal one that only a restart clears.
std::shared_ptr<rocksdb::FileSystem> RetryWhenOutOfFiles(std::shared_ptr<rocksdb::FileSystem> base);

class HealthMonitor : public rocksdb::EventListener {
 public:
  HealthMonitor() = default;
  ~HealthMonitor() override { Stop(); }

  // Starts the recovery thread. REQUIRES: `db` stays open until Stop returns.
  void Start(rocksdb::DB* db);
  // Stops the recovery thread; idempotent.
  void Stop();
  // The background error in force ("IO error: ..."), or nullopt when storage is healthy.
  std::optional<std::string> Error() const;

  void OnBackgroundError(rocksdb::BackgroundErrorReason reason, rocksdb::Status* error) override;
  void OnErrorRecoveryEnd(const rocksdb::BackgroundErrorRecoveryInfo& info) override;

 private:
  void RecoverLoop();

  static constexpr auto kFirstRetry = std::chrono::milliseconds(100);
  static constexpr auto kLastRetry = std::chrono::milliseconds(5000);

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::optional<std::string> error_;
  bool stopping_ = false;
  rocksdb::DB* db_ = nullptr;
  std::thread thread_;
};

}  // namespace ddbd::storage
