// Clock: the system clock reads the operating system's time; a ManualClock moves only when
// told to; a ControllableClock follows its base clock, frozen or moved forward, never back.
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

constexpr int64_t kStart = 1'700'000'000'000;

TEST(ControllableClockTest, FollowsItsBaseClockUntilChanged) {
  ManualClock base(kStart);
  ControllableClock clock(base);
  EXPECT_EQ(clock.NowMs(), kStart);
  EXPECT_EQ(clock.mode(), ControllableClock::Mode::kSystem);
  base.Advance(250);
  EXPECT_EQ(clock.NowMs(), kStart + 250);
}

TEST(ControllableClockTest, AFrozenClockStandsStillWhileItsBaseMoves) {
  ManualClock base(kStart);
  ControllableClock clock(base);
  ASSERT_TRUE(clock.Freeze(kStart + 10'000).ok());
  base.Advance(5'000);
  EXPECT_EQ(clock.NowMs(), kStart + 10'000);
  EXPECT_EQ(clock.mode(), ControllableClock::Mode::kFrozen);
  EXPECT_STREQ(ClockModeName(clock.mode()), "frozen");
}

TEST(ControllableClockTest, AdvanceKeepsAFrozenClockFrozenAndARunningOneRunning) {
  ManualClock base(kStart);
  ControllableClock clock(base);
  ASSERT_TRUE(clock.Advance(61'000).ok());
  EXPECT_EQ(clock.NowMs(), kStart + 61'000);
  EXPECT_EQ(clock.mode(), ControllableClock::Mode::kOffset);
  base.Advance(1'000);
  EXPECT_EQ(clock.NowMs(), kStart + 62'000);

  ASSERT_TRUE(clock.Freeze(kStart + 100'000).ok());
  ASSERT_TRUE(clock.Advance(3'600'000).ok());
  base.Advance(1'000);
  EXPECT_EQ(clock.NowMs(), kStart + 3'700'000);
  EXPECT_EQ(clock.mode(), ControllableClock::Mode::kFrozen);
}

TEST(ControllableClockTest, TimeNeverMovesBackwards) {
  ManualClock base(kStart);
  ControllableClock clock(base);
  Status earlier = clock.Freeze(kStart - 1);
  ASSERT_FALSE(earlier.ok());
  EXPECT_EQ(earlier.error().code(), ErrorCode::kValidation);
  Status negative = clock.Advance(-1);
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.error().code(), ErrorCode::kValidation);
  EXPECT_EQ(clock.NowMs(), kStart);
  EXPECT_EQ(clock.mode(), ControllableClock::Mode::kSystem);
  // Freezing at the current reading is allowed: it moves nothing.
  EXPECT_TRUE(clock.Freeze(kStart).ok());
}

TEST(ControllableClockTest, RunContinuesFromTheFrozenReading) {
  ManualClock base(kStart);
  ControllableClock clock(base);
  ASSERT_TRUE(clock.Freeze(kStart + 60'000).ok());
  base.Advance(10'000);  // real time passes while frozen
  clock.Run();
  EXPECT_EQ(clock.NowMs(), kStart + 60'000);
  EXPECT_EQ(clock.mode(), ControllableClock::Mode::kOffset);
  base.Advance(500);
  EXPECT_EQ(clock.NowMs(), kStart + 60'500);
}

TEST(ControllableClockTest, IsUnderTestControlOnceFrozenOrMoved) {
  ManualClock base(kStart);
  ControllableClock clock(base);
  EXPECT_FALSE(clock.UnderTestControl());
  clock.FreezeNow();
  EXPECT_TRUE(clock.UnderTestControl());
  EXPECT_EQ(clock.NowMs(), kStart);
  clock.Run();
  EXPECT_FALSE(clock.UnderTestControl());
  ASSERT_TRUE(clock.Advance(1).ok());
  EXPECT_TRUE(clock.UnderTestControl());
  EXPECT_FALSE(base.UnderTestControl());
}

TEST(ControllableClockTest, CanStartFrozenInThePast) {
  ManualClock base(kStart);
  ControllableClock clock(base, kStart - 86'400'000);
  EXPECT_EQ(clock.NowMs(), kStart - 86'400'000);
  EXPECT_EQ(clock.mode(), ControllableClock::Mode::kFrozen);
  clock.Run();
  base.Advance(1'000);
  EXPECT_EQ(clock.NowMs(), kStart - 86'399'000);
}

TEST(ControllableClockTest, RunWithNoOffsetLeftIsTheSystemClock) {
  ManualClock base(kStart);
  ControllableClock clock(base);
  ASSERT_TRUE(clock.Freeze(kStart).ok());
  clock.Run();
  EXPECT_EQ(clock.mode(), ControllableClock::Mode::kSystem);
  clock.Run();  // running already: nothing changes
  EXPECT_EQ(clock.NowMs(), kStart);
}

TEST(ParseTimeMsTest, ReadsEpochSecondsAndIso8601) {
  EXPECT_EQ(*ParseTimeMs("1700000000"), 1'700'000'000'000);
  EXPECT_EQ(*ParseTimeMs("1700000000.25"), 1'700'000'000'250);
  EXPECT_EQ(*ParseTimeMs("0"), 0);
  EXPECT_EQ(*ParseTimeMs("2024-03-01"), 1'709'251'200'000);
  EXPECT_EQ(*ParseTimeMs("2024-03-01T12:00:00Z"), 1'709'294'400'000);
  EXPECT_EQ(*ParseTimeMs("2024-03-01T12:00:00"), 1'709'294'400'000);
  EXPECT_EQ(*ParseTimeMs("2024-03-01T12:00:00.5Z"), 1'709'294'400'500);
  EXPECT_EQ(*ParseTimeMs("2024-03-01T12:00:00.123456Z"), 1'709'294'400'123);
  EXPECT_EQ(*ParseTimeMs("2024-03-01T13:00:00+01:00"), 1'709'294'400'000);
  EXPECT_EQ(*ParseTimeMs("2024-03-01T07:30:00-0430"), 1'709'294'400'000);
  EXPECT_EQ(*ParseTimeMs("2000-02-29T00:00:00Z"), 951'782'400'000);
}

TEST(ParseTimeMsTest, RefusesWhatIsNotATime) {
  for (const char* text : {"", "now", "17e8", "-5", "1700000000.", "2024-13-01", "2024-03-01T12",
                           "2024-03-01T12:00", "2024-03-01T25:00:00Z", "2024-03-01T12:00:00Q",
                           "2024-03-01T12:00:00+1", "99999999999999999999999"}) {
    Result<int64_t> parsed = ParseTimeMs(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.error().code(), ErrorCode::kValidation) << text;
  }
}

}  // namespace
}  // namespace ddbd
