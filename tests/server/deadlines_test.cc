#include "server/http/deadlines.h"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <chrono>
#include <functional>
#include <memory>

namespace ddbd::server::http {
namespace {

using std::chrono::milliseconds;

class Watched : public Deadlines::Entry {
 public:
  explicit Watched(Deadlines& deadlines) : Deadlines::Entry(deadlines) { Watch(); }
  int fired = 0;
  std::function<void()> on_deadline;

 private:
  void OnDeadline() override {
    ++fired;
    if (on_deadline) on_deadline();
  }
};

TEST(DeadlinesTest, TickIsAnEighthOfTheShortestTimeoutWithinBounds) {
  EXPECT_EQ(Deadlines::TickFor(milliseconds(500)), milliseconds(62));
  EXPECT_EQ(Deadlines::TickFor(milliseconds(10'000)), milliseconds(250));
  EXPECT_EQ(Deadlines::TickFor(milliseconds(1)), milliseconds(10));
}

TEST(DeadlinesTest, OnlyAPassedDeadlineFiresAndOnlyOnce) {
  boost::asio::io_context context(1);
  Deadlines deadlines(context, milliseconds(10));
  auto soon = std::make_unique<Watched>(deadlines);
  auto later = std::make_unique<Watched>(deadlines);
  auto unset = std::make_unique<Watched>(deadlines);
  soon->SetDeadline(milliseconds(30));
  later->SetDeadline(milliseconds(60'000));
  const auto started = std::chrono::steady_clock::now();
  context.run_for(milliseconds(200));
  EXPECT_EQ(soon->fired, 1);  // not again on later sweeps: a deadline fires once
  EXPECT_EQ(later->fired, 0);
  EXPECT_EQ(unset->fired, 0);
  EXPECT_GE(std::chrono::steady_clock::now() - started, milliseconds(30));
}

TEST(DeadlinesTest, ADeadlineSetAgainFiresAgain) {
  boost::asio::io_context context(1);
  Deadlines deadlines(context, milliseconds(10));
  Watched entry(deadlines);
  entry.on_deadline = [&] {
    if (entry.fired < 3) entry.SetDeadline(milliseconds(15));
  };
  entry.SetDeadline(milliseconds(15));
  context.run_for(milliseconds(300));
  EXPECT_EQ(entry.fired, 3);
}

// The sweeping timer stops when nothing is watched, so an idle context has no work left and
// run() returns by itself; an entry destroyed in between is unlinked, wherever it was.
TEST(DeadlinesTest, SweepingStopsWhenTheLastEntryIsGone) {
  boost::asio::io_context context(1);
  Deadlines deadlines(context, milliseconds(10));
  auto first = std::make_unique<Watched>(deadlines);
  auto middle = std::make_unique<Watched>(deadlines);
  auto last = std::make_unique<Watched>(deadlines);
  middle.reset();
  first->SetDeadline(milliseconds(20));
  first->on_deadline = [&] {
    boost::asio::post(context, [&] {
      first.reset();
      last.reset();
    });
  };
  context.run_for(milliseconds(2000));
  EXPECT_TRUE(context.stopped());  // out of work: the timer is no longer armed
  EXPECT_EQ(first, nullptr);
  EXPECT_EQ(last, nullptr);
}

// A Deadlines destroyed first (as the server's are, before their contexts) leaves its
// remaining entries safe to destroy.
TEST(DeadlinesTest, EntriesOutlivingTheirListAreDestroyedSafely) {
  boost::asio::io_context context(1);
  auto deadlines = std::make_unique<Deadlines>(context, milliseconds(10));
  auto entry = std::make_unique<Watched>(*deadlines);
  deadlines.reset();
  entry.reset();
}

}  // namespace
}  // namespace ddbd::server::http
