// Clock: the system clock reads the operating system's time; a ManualClock moves only when
// told to.
#include "model/clock.h"

#include <gtest/gtest.h>

#include <chrono>

namespace ddbd {
namespace {

TEST(ClockTest, SystemClockReadsTheOperatingSystemsTime) {
  const int64_t before = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  const int64_t now = Clock::System().NowMs();
  const int64_t after = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  EXPECT_LE(before, now);
  EXPECT_LE(now, after);
}

TEST(ClockTest, ManualClockMovesOnlyWhenTold) {
  ManualClock clock(1'700'000'000'000);
  EXPECT_EQ(clock.NowMs(), 1'700'000'000'000);
  clock.Advance(61'000);
  EXPECT_EQ(clock.NowMs(), 1'700'000'061'000);
  clock.Set(5);
  EXPECT_EQ(clock.NowMs(), 5);
}

}  // namespace
}  // namespace ddbd
