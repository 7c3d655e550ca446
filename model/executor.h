// Executor: the process's background work — index backfills, delayed status changes, vector
// graph builds, Time to Live passes — on a bounded number of threads, so that no amount of
// work (500 tables created under -delayTransientStatuses, say) multiplies threads.
//
// Threads are started when work arrives and none is idle, up to the bound, and then kept.
// Long work is written as slices that re-submit themselves (`Run` again at the end of a
// slice), so that one long job cannot starve the others: ready tasks run in submission
// order, delayed tasks once their time has come.
//
// Entry points: Run, RunAfter, stopping, Stop.
// Thread-safety: every method may be called from any thread, and all but Stop from tasks.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "model/result.h"

namespace ddbd {

class Executor {
 public:
  using Task = std::function<void()>;
  using Duration = std::chrono::steady_clock::duration;

  // REQUIRES: max_threads >= 1.
  explicit Executor(size_t max_threads);
  ~Executor();  // Stop()
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Runs `task` on a background thread. Ignored once stopping.
  void Run(Task task);
  // Runs `task` once `delay` has passed. Ignored once stopping.
  void RunAfter(Duration delay, Task task);
  // True once Stop has begun: long tasks check it between slices and end early.
  bool stopping() const;
  // Drops the tasks that have not started, waits for those running, ends the threads.
  // Work dropped here is resumed from storage at the next start. Idempotent.
  // REQUIRES: not called from a task.
  void Stop();

  // Threads started so far (at most the bound).
  size_t threads() const;
  // Tasks waiting to start, due now or later.
  size_t pending() const;

 private:
  struct Delayed {
    std::chrono::steady_clock::time_point due;
    uint64_t order;  // submission order among equal deadlines
    Task task;
  };
  void StartThreadIfNeeded();  // REQUIRES: mutex_ held
  void Work();

  const size_t max_threads_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Task> ready_;
  std::vector<Delayed> delayed_;  // a min-heap by (due, order)
  uint64_t next_order_ = 0;
  size_t idle_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

// Runs `pass` on `executor` after `first` (now by default), and again `interval` after each
// run that answers true, until the executor stops; a run that answers false ends the passes
// (the caller starts them again when there is work). A failed pass is logged as a warning
// naming `what` ("stream retention") and retried at the next. REQUIRES: what `pass` uses
// outlives the executor's threads.
void RunWhile(Executor& executor, Executor::Duration interval, std::string what,
              std::function<Result<bool>()> pass, Executor::Duration first = {});
// RunWhile with a pass that always goes on.
void RunEvery(Executor& executor, Executor::Duration interval, std::string what,
              std::function<Status()> pass);

}  // namespace ddbd
