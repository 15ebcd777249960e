#include "probes/load/background_load.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace harness {
namespace {

// Processes whose process group is `pgid`, from /proc/<pid>/stat (field 5).
int processes_in_group(int pgid) {
  int count = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 2));
    std::string state;
    int ppid = 0, pgrp = 0;
    rest >> state >> ppid >> pgrp;
    if (pgrp == pgid && state != "Z") ++count;
  }
  return count;
}

TEST(BackgroundLoad, StressNgIsStartedAndStoppedWithNoStrayProcess) {
  if (!find_executable("stress-ng")) GTEST_SKIP() << "stress-ng is not installed (scripts/install-deps)";
  auto load = BackgroundLoad::start({"stress-ng", "--cpu", "1", "--timeout", "60s"});
  ASSERT_TRUE(load) << load.error().message;
  const int pgid = (*load)->pid();
  // stress-ng forks its worker: wait until the group has both.
  for (int i = 0; i < 300 && processes_in_group(pgid) < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_GE(processes_in_group(pgid), 2);
  EXPECT_TRUE((*load)->check_alive());
  LoadOutcome out = (*load)->stop();
  EXPECT_EQ(processes_in_group(pgid), 0);
  EXPECT_EQ(out.command, "stress-ng --cpu 1 --timeout 60s");
  EXPECT_THAT(out.output, testing::HasSubstr("dispatching hogs: 1 cpu"));
}

TEST(BackgroundLoad, ALoadThatStoppedEarlyIsReportedWithItsOutput) {
  auto load = BackgroundLoad::start({"sh", "-c", "echo overheated; exit 3"});
  ASSERT_TRUE(load);
  for (int i = 0; i < 300 && (*load)->check_alive(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  Status alive = (*load)->check_alive();
  ASSERT_FALSE(alive);
  EXPECT_EQ(alive.error().message,
            "load \"sh -c echo overheated; exit 3\" stopped during the measured window (exit status 3); last output: "
            "overheated");
}

TEST(BackgroundLoad, AGroupThatIgnoresSigtermIsKilled) {
  auto load = BackgroundLoad::start({"sh", "-c", "trap '' TERM; sleep 30 & sleep 30"});
  ASSERT_TRUE(load);
  const int pgid = (*load)->pid();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  LoadOutcome out = (*load)->stop(0.2);
  EXPECT_EQ(out.end.describe(), "killed by signal 9 (Killed)");
  EXPECT_EQ(processes_in_group(pgid), 0);
}

TEST(BackgroundLoad, AMissingStressNgIsAPlanTimeErrorWithAHint) {
  const char* old = std::getenv("PATH");
  std::string saved = old ? old : "";
  setenv("PATH", "/nonexistent", 1);
  Status missing = check_load_command({"stress-ng", "--cpu", "1"});
  Status other = check_load_command({"my-load"});
  setenv("PATH", saved.c_str(), 1);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message,
            "command 'stress-ng': not found in PATH; install the Debian package stress-ng (scripts/install-deps)");
  EXPECT_EQ(missing.error().code, ExitCode::bad_input);
  EXPECT_EQ(other.error().message, "command 'my-load': not found in PATH");
  EXPECT_TRUE(check_load_command({}));  // "none"
}

}  // namespace
}  // namespace harness
