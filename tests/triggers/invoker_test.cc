// Commands as trigger targets: the batch on standard input, the answer on standard output,
// the exit status and Lambda's error object as failures, the timeout killing the process.
#include "triggers/invoker.h"

#include <gtest/gtest.h>

#include <chrono>

#include "tests/testing/assertions.h"

namespace ddbd::triggers {
namespace {

using std::chrono::milliseconds;

const std::atomic<bool> kNotCancelled{false};

TEST(RunCommandTest, TheBatchIsOnStandardInputAndTheAnswerOnStandardOutput) {
  ASSERT_OK_AND_ASSIGN(
      auto result, RunCommand("tr a-z A-Z", "{\"records\":[]}", milliseconds(5000), kNotCancelled));
  EXPECT_EQ(result.exit_status, 0);
  EXPECT_EQ(result.output, "{\"RECORDS\":[]}");
}

TEST(RunCommandTest, ExitStatusAndStandardError) {
  ASSERT_OK_AND_ASSIGN(auto result,
                       RunCommand("echo oops >&2; exit 3", "", milliseconds(5000), kNotCancelled));
  EXPECT_EQ(result.exit_status, 3);
  EXPECT_EQ(result.errors, "oops\n");
}

TEST(RunCommandTest, ATimeoutKillsTheWholeProcessGroup) {
  const auto started = std::chrono::steady_clock::now();
  auto result = RunCommand("sleep 30 & sleep 30", "", milliseconds(200), kNotCancelled);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message().find("timed out"), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
}

TEST(InvokeTest, FailuresAreLambdasFunctionErrors) {
  const Target failing{"", "echo '{\"errorType\":\"Boom\",\"errorMessage\":\"bad record\"}'",
                       milliseconds(5000)};
  Invocation error_object = Invoke(failing, nullptr, "{}", kNotCancelled);
  EXPECT_TRUE(error_object.function_error);
  EXPECT_EQ(error_object.error, "Boom: bad record");
  Invocation exited = Invoke({"", "cat >/dev/null; exit 1", milliseconds(5000)}, nullptr,
                             std::string(200'000, 'x'), kNotCancelled);
  EXPECT_TRUE(exited.function_error);
  EXPECT_EQ(exited.error, "command exited with status 1");
  Invocation answered = Invoke({"", "echo '{\"batchItemFailures\":[]}'", milliseconds(5000)},
                               nullptr, "{}", kNotCancelled);
  EXPECT_FALSE(answered.function_error);
  EXPECT_EQ(answered.response, "{\"batchItemFailures\":[]}\n");
  Invocation no_reader =
      Invoke({"", "true", milliseconds(5000)}, nullptr, std::string(1'000'000, 'x'), kNotCancelled);
  EXPECT_FALSE(no_reader.function_error);  // a handler need not read its input
}

}  // namespace
}  // namespace ddbd::triggers
