// Executor: bounded threads, ordering, delays, and what Stop does with pending work.
#include "model/executor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <vector>

namespace ddbd {
namespace {

using namespace std::chrono_literals;

TEST(ExecutorTest, ManyTasksRunOnAtMostTheBoundOfThreads) {
  Executor executor(3);
  std::atomic<int> running{0}, peak{0}, done{0};
  std::promise<void> all_done;
  constexpr int kTasks = 500;
  for (int i = 0; i < kTasks; ++i) {
    executor.Run([&] {
      const int now = ++running;
      int seen = peak.load();
      while (now > seen && !peak.compare_exchange_weak(seen, now)) {
      }
      std::this_thread::sleep_for(50us);
      --running;
      if (++done == kTasks) all_done.set_value();
    });
  }
  all_done.get_future().wait();
  EXPECT_EQ(done.load(), kTasks);
  EXPECT_LE(peak.load(), 3);
  EXPECT_LE(executor.threads(), 3u);
}

// A thread waiting for the earliest delayed task must not keep a reference into the queue:
// scheduling more delayed tasks grows (moves) it while the thread waits (a heap use after free
// under ASan, seen in ddbd started with -delayTransientStatuses).
TEST(ExecutorTest, SchedulingDelayedTasksWhileAThreadWaitsForOne) {
  Executor executor(1);
  executor.RunAfter(1h, [] {});
  std::this_thread::sleep_for(20ms);  // the thread is waiting for the first deadline
  std::promise<void> ran;
  for (int i = 0; i < 100; ++i) {
    executor.RunAfter(2h, [] {});
    std::this_thread::sleep_for(100us);  // lets the waiting thread wake up and wait again
  }
  executor.RunAfter(1ms, [&] { ran.set_value(); });
  EXPECT_EQ(ran.get_future().wait_for(10s), std::future_status::ready);
}

TEST(ExecutorTest, ReadyTasksRunInSubmissionOrderOnOneThread) {
  Executor executor(1);
  std::vector<int> order;
  std::promise<void> finished;
  for (int i = 0; i < 20; ++i) executor.Run([&, i] { order.push_back(i); });
  executor.Run([&] { finished.set_value(); });
  finished.get_future().wait();
  std::vector<int> expected(20);
  for (int i = 0; i < 20; ++i) expected[i] = i;
  EXPECT_EQ(order, expected);
}

TEST(ExecutorTest, DelayedTasksRunAfterTheirDelayInDeadlineOrder) {
  Executor executor(1);
  std::mutex mutex;
  std::vector<int> order;
  std::promise<void> finished;
  const auto started = std::chrono::steady_clock::now();
  executor.RunAfter(60ms, [&] {
    std::lock_guard lock(mutex);
    order.push_back(2);
    finished.set_value();
  });
  executor.RunAfter(30ms, [&] {
    std::lock_guard lock(mutex);
    order.push_back(1);
  });
  executor.Run([&] {
    std::lock_guard lock(mutex);
    order.push_back(0);
  });
  finished.get_future().wait();
  EXPECT_GE(std::chrono::steady_clock::now() - started, 60ms);
  std::lock_guard lock(mutex);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2}));
}

TEST(ExecutorTest, StopDropsPendingWorkWaitsForRunningWorkAndRefusesNewWork) {
  Executor executor(1);
  std::promise<void> entered;
  std::atomic<bool> release{false}, finished_running{false}, ran_pending{false};
  executor.Run([&] {
    entered.set_value();
    while (!release) std::this_thread::sleep_for(1ms);
    finished_running = true;
  });
  entered.get_future().wait();
  executor.Run([&] { ran_pending = true; });
  executor.RunAfter(1ms, [&] { ran_pending = true; });
  std::thread releaser([&] {
    std::this_thread::sleep_for(20ms);
    release = true;
  });
  executor.Stop();
  releaser.join();
  EXPECT_TRUE(finished_running);
  EXPECT_FALSE(ran_pending);
  EXPECT_TRUE(executor.stopping());
  executor.Run([&] { ran_pending = true; });
  std::this_thread::sleep_for(5ms);
  EXPECT_FALSE(ran_pending);
  executor.Stop();  // idempotent
}

TEST(ExecutorTest, NoThreadIsStartedBeforeWorkArrives) {
  Executor executor(4);
  EXPECT_EQ(executor.threads(), 0u);
  std::promise<void> done;
  executor.Run([&] { done.set_value(); });
  done.get_future().wait();
  EXPECT_EQ(executor.threads(), 1u);
}

}  // namespace
}  // namespace ddbd
