// The bounded background executor.
#include "model/executor.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "model/log.h"

namespace ddbd {
namespace {

// Orders the heap so that the earliest deadline (then the earliest submission) is on top.
template <typename Delayed>
bool Later(const Delayed& a, const Delayed& b) {
  return a.due != b.due ? a.due > b.due : a.order > b.order;
}

}  // namespace

Executor::Executor(size_t max_threads) : max_threads_(std::max<size_t>(1, max_threads)) {}

Executor::~Executor() { Stop(); }

void Executor::Run(Task task) {
  std::lock_guard lock(mutex_);
  if (stopping_) return;
  ready_.push_back(std::move(task));
  StartThreadIfNeeded();
  wake_.notify_one();
}

void Executor::RunAfter(Duration delay, Task task) {
  std::lock_guard lock(mutex_);
  if (stopping_) return;
  delayed_.push_back({std::chrono::steady_clock::now() + delay, next_order_++, std::move(task)});
  std::push_heap(delayed_.begin(), delayed_.end(), Later<Delayed>);
  StartThreadIfNeeded();
  // Every idle thread re-computes its wait: the new deadline may be the earliest.
  wake_.notify_all();
}

bool Executor::stopping() const {
  std::lock_guard lock(mutex_);
  return stopping_;
}

size_t Executor::threads() const {
  std::lock_guard lock(mutex_);
  return threads_.size();
}

size_t Executor::pending() const {
  std::lock_guard lock(mutex_);
  return ready_.size() + delayed_.size();
}

void Executor::StartThreadIfNeeded() {
  if (idle_ > 0 || threads_.size() >= max_threads_) return;
  threads_.emplace_back([this] { Work(); });
}

void Executor::Work() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    const auto now = std::chrono::steady_clock::now();
    if (!delayed_.empty() && delayed_.front().due <= now) {
      std::pop_heap(delayed_.begin(), delayed_.end(), Later<Delayed>);
      ready_.push_back(std::move(delayed_.back().task));
      delayed_.pop_back();
    }
    if (ready_.empty()) {
      ++idle_;
      if (delayed_.empty()) {
        wake_.wait(lock);
      } else {
        // A copy: wait_until reads its deadline again on waking, when RunAfter may have
        // moved the queue's elements.
        const auto due = delayed_.front().due;
        wake_.wait_until(lock, due);
      }
      --idle_;
      continue;
    }
    Task task = std::move(ready_.front());
    ready_.pop_front();
    lock.unlock();
    task();
    task = nullptr;  // its captures are released outside the lock
    lock.lock();
  }
}

void Executor::Stop() {
  std::vector<std::thread> threads;
  std::deque<Task> dropped_ready;
  std::vector<Delayed> dropped_delayed;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    dropped_ready.swap(ready_);
    dropped_delayed.swap(delayed_);
    threads.swap(threads_);
    wake_.notify_all();
  }
  // The dropped tasks' captures are released here, outside the lock.
  for (auto& thread : threads) thread.join();
}

namespace {

using Pass = std::pair<std::string, std::function<Result<bool>()>>;

void RunPass(Executor& executor, Executor::Duration interval, std::shared_ptr<const Pass> pass) {
  Result<bool> again = pass->second();
  if (!again.ok()) {
    log::Warning("%s pass failed (retried later): %s", pass->first.c_str(),
                 again.error().message().c_str());
  } else if (!*again) {
    return;
  }
  executor.RunAfter(interval, [&executor, interval, pass] { RunPass(executor, interval, pass); });
}

}  // namespace

void RunWhile(Executor& executor, Executor::Duration interval, std::string what,
              std::function<Result<bool>()> pass, Executor::Duration first) {
  auto shared = std::make_shared<const Pass>(std::move(what), std::move(pass));
  auto run = [&executor, interval, shared] { RunPass(executor, interval, shared); };
  if (first > Executor::Duration::zero()) {
    executor.RunAfter(first, std::move(run));
  } else {
    executor.Run(std::move(run));
  }
}

void RunEvery(Executor& executor, Executor::Duration interval, std::string what,
              std::function<Status()> pass) {
  RunWhile(executor, interval, std::move(what), [pass = std::move(pass)]() -> Result<bool> {
    DDBD_RETURN_IF_ERROR(pass());
    return true;
  });
}

}  // namespace ddbd
