#include "insight/race_watch.h"

#include <gtest/gtest.h>

#include <string>

namespace ddbd::insight {
namespace {

using Verdict = RaceWatch::Verdict;

// Plays `script` on item 1 at time 0: 'r' a read, 'b' a blind write, 'g' a guarded write (a
// condition, or an atomic update); returns a letter per write: '-' other, 'm' read-modify-write,
// 'L' lost update.
std::string Play(RaceWatch& watch, const std::string& script, int64_t now_ms = 0) {
  std::string verdicts;
  for (char step : script) {
    if (step == 'r') {
      watch.Read(1);
      continue;
    }
    switch (watch.Write(1, step == 'b', now_ms)) {
      case Verdict::kOther:
        verdicts += '-';
        break;
      case Verdict::kReadModifyWrite:
        verdicts += 'm';
        break;
      case Verdict::kLostUpdate:
        verdicts += 'L';
        break;
    }
  }
  return verdicts;
}

TEST(RaceWatchTest, TwoReadersWritingBlindLoseTheFirstWritersChange) {
  RaceWatch watch;
  EXPECT_EQ(Play(watch, "rrbb"), "mL");
}

TEST(RaceWatchTest, ReadWriteCyclesInTurnDoNotRace) {
  RaceWatch watch;
  EXPECT_EQ(Play(watch, "rbrbrb"), "mmm");
}

TEST(RaceWatchTest, WritesWithoutAReadOrWithAConditionAreNotReadModifyWrites) {
  RaceWatch watch;
  EXPECT_EQ(Play(watch, "bb"), "--");    // never read: blind, but derived from nothing read
  EXPECT_EQ(Play(watch, "rrgg"), "--");  // both guarded: the second one's condition decides
  EXPECT_EQ(Play(watch, "rbb"), "m-");   // one reader writing twice
}

TEST(RaceWatchTest, InterleavedReadersEachLoseTheOthersChange) {
  RaceWatch watch;
  // A reads, B reads, A writes, A reads again, B writes (from its old read), A writes (from
  // the read B's write made stale).
  EXPECT_EQ(Play(watch, "rrbrbb"), "mLL");
}

TEST(RaceWatchTest, AStaleReadExpires) {
  RaceWatch watch;
  EXPECT_EQ(Play(watch, "rrb", 0), "m");
  EXPECT_EQ(Play(watch, "b", RaceWatch::kStaleForMs + 1), "-");
}

TEST(RaceWatchTest, KeepsAtMostItsCapacityOfItemsForgettingTheOldest) {
  RaceWatch watch(2);
  watch.Read(1);
  watch.Read(2);
  watch.Read(3);  // item 1 is forgotten
  EXPECT_EQ(watch.Write(1, true, 0), Verdict::kOther);
  EXPECT_EQ(watch.Write(2, true, 0), Verdict::kReadModifyWrite);
  EXPECT_EQ(watch.Write(3, true, 0), Verdict::kReadModifyWrite);
}

}  // namespace
}  // namespace ddbd::insight
