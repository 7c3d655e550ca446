// The log: levels filter lines; each line is "ddbd: " with the level for non-info lines.
#include "model/log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace ddbd::log {
namespace {

// Captures what the log writes to standard error while `write` runs.
template <typename Write>
std::string Captured(Write write) {
  int pipe_fds[2];
  EXPECT_EQ(pipe(pipe_fds), 0);
  const int saved = dup(STDERR_FILENO);
  dup2(pipe_fds[1], STDERR_FILENO);
  write();
  dup2(saved, STDERR_FILENO);
  close(saved);
  close(pipe_fds[1]);
  std::string out;
  char buffer[256];
  for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof buffer)) > 0;) out.append(buffer, n);
  close(pipe_fds[0]);
  return out;
}

TEST(LogTest, LevelsFilterAndPrefixLines) {
  SetLevel(Level::kWarning);
  EXPECT_EQ(Captured([] {
              Error("disk %s", "full");
              Warning("slow: %d ms", 12);
              Info("not shown");
              Debug("not shown");
            }),
            "ddbd: error: disk full\nddbd: warning: slow: 12 ms\n");
  SetLevel(Level::kDebug);
  EXPECT_EQ(Captured([] {
              Info("listening on %s:%u", "127.0.0.1", 8000u);
              Debug("detail");
            }),
            "ddbd: listening on 127.0.0.1:8000\nddbd: debug: detail\n");
  SetLevel(Level::kInfo);
}

TEST(LogTest, ParsesLevelNames) {
  EXPECT_EQ(ParseLevel("error"), Level::kError);
  EXPECT_EQ(ParseLevel("warning"), Level::kWarning);
  EXPECT_EQ(ParseLevel("info"), Level::kInfo);
  EXPECT_EQ(ParseLevel("debug"), Level::kDebug);
  EXPECT_EQ(ParseLevel("verbose"), std::nullopt);
}

TEST(LogTest, EveryIsDueOncePerSecond) {
  Every every;
  EXPECT_TRUE(every.Due());
  EXPECT_FALSE(every.Due());
}

TEST(LogTest, ProgressCadenceLogsEveryStepAtDebugAndOnePerIntervalAtInfo) {
  SetLevel(Level::kInfo);
  ProgressCadence hourly(std::chrono::hours(1));
  EXPECT_EQ(hourly.Next(), std::nullopt);  // not due, and debug lines are filtered out
  SetLevel(Level::kDebug);
  EXPECT_EQ(hourly.Next(), Level::kDebug);
  ProgressCadence always(std::chrono::seconds(0));
  EXPECT_EQ(always.Next(), Level::kInfo);
  EXPECT_EQ(always.Next(), Level::kInfo);
  SetLevel(Level::kInfo);
}

}  // namespace
}  // namespace ddbd::log
