#include "probes/stability/stability_probe.h"

#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "probes/process.h"
#include "tests/support/fake_device.h"
#include "tests/support/scratch_dir.h"

namespace harness {
namespace {

namespace fs = std::filesystem;

using testing_support::ScriptedCanary;

class ProbeOnFakeTree : public ::testing::Test {
 protected:
  testing_support::FakeDeviceTree tree_;
};

TEST_F(ProbeOnFakeTree, AReadingWithTheCanaryTakesTheClocksWhileItRuns) {
  tree_.put("/sys/devices/system/cpu/cpu2/cpufreq/scaling_cur_freq", "1800000\n");
  tree_.put("/sys/devices/system/cpu/cpu2/cpufreq/cpuinfo_max_freq", "2400000\n");
  tree_.put("/sys/devices/system/cpu/cpu2/cpufreq/scaling_governor", "schedutil\n");
  tree_.put("/proc/loadavg", "0.10 0.20 0.30 1/100 999\n");
  tree_.put("/proc/stat", "cpu2 100 0 0 1000 0 0 0 0\n");
  tree_.process(9, "harness", 1, 5, 5);
  FakeClock clock(1'000'000'000);
  ScriptedCanary canary;
  canary.runs = {{0.1}};
  StabilityProbe probe({tree_.root(), {2}, 9, 5}, clock, canary);
  // The canary's load raises the clock, which drops once it ends: what was
  // read while it ran is kept.
  canary.starting = [&] { tree_.put("/sys/devices/system/cpu/cpu2/cpufreq/scaling_cur_freq", "2400000\n"); };
  canary.ending = [&] { tree_.put("/sys/devices/system/cpu/cpu2/cpufreq/scaling_cur_freq", "600000\n"); };
  StabilityReading first = probe.read("before", true);
  EXPECT_EQ(first.at, "before");
  EXPECT_EQ(first.t_s, 0);
  ASSERT_EQ(first.cpus.size(), 1u);
  EXPECT_EQ(first.cpus[0].cpu, 2);
  EXPECT_EQ(first.cpus[0].cur_hz.value, 2.4e9);
  EXPECT_EQ(first.cpus[0].max_hz.value, 2.4e9);
  EXPECT_EQ(first.cpus[0].governor.value, "schedutil");
  ASSERT_EQ(first.canary.size(), 1u);
  EXPECT_EQ(first.canary[0].cpu, 2);
  EXPECT_EQ(first.canary[0].seconds.value, 0.1);
  EXPECT_EQ(first.use.unavailable, "the first reading of its series: no interval yet");
  EXPECT_EQ(first.load.value->fifteen, 0.3);
  EXPECT_EQ(first.thermal.unavailable, tree_.root() + "/sys/class/thermal: No such file or directory");

  tree_.put("/proc/stat", "cpu2 150 0 0 1000 0 0 0 0\n");
  tree_.put("/sys/devices/system/cpu/cpu2/cpufreq/scaling_cur_freq", "1200000\n");
  StabilityReading second = probe.read("during", false);
  EXPECT_TRUE(second.canary.empty());
  EXPECT_EQ(second.cpus[0].cur_hz.value, 1.2e9);
  ASSERT_TRUE(second.use) << second.use.unavailable;
  // The clock stepped once for the first reading's start, once for its
  // closing snapshot and once for this reading.
  EXPECT_DOUBLE_EQ(second.use.value->seconds, 1);
  EXPECT_DOUBLE_EQ(second.use.value->busy_s, 0.5);
  EXPECT_DOUBLE_EQ(second.t_s, 2);
}

TEST_F(ProbeOnFakeTree, ASeriesIsBeforeThenDuringAtItsIntervalThenAfter) {
  tree_.put("/proc/stat", "cpu0 100 0 0 1000 0 0 0 0\n");
  MonotonicClock clock;
  ScriptedCanary canary;
  canary.runs = {{0.1}, {0.2}};
  StabilitySampler series({tree_.root(), {0}, 1, 5}, clock, canary, 0.05);
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  std::vector<StabilityReading> r = series.finish();
  ASSERT_GE(r.size(), 3u);
  EXPECT_EQ(r.front().at, "before");
  EXPECT_EQ(r.back().at, "after");
  for (std::size_t i = 1; i + 1 < r.size(); ++i) {
    EXPECT_EQ(r[i].at, "during");
    EXPECT_TRUE(r[i].canary.empty());
    EXPECT_TRUE(r[i].use) << r[i].use.unavailable;
  }
  EXPECT_EQ(r.front().canary[0].seconds.value, 0.1);
  EXPECT_EQ(r.back().canary[0].seconds.value, 0.2);
  EXPECT_EQ(canary.next, 2u);
}

TEST(Canary, TheWorkIsFixedAndDeterministic) {
  EXPECT_EQ(canary_chunk(1000), canary_chunk(1000));
  EXPECT_NE(canary_chunk(1000), canary_chunk(1001));
}

// ---- The real probe on this machine: what it reads, and what it lacks ----

TEST(RealProbe, ReadsTheLoadAverageAndTheCpuUseOfThisMachine) {
  MonotonicClock clock;
  FixedWorkCanary canary;
  StabilityProbe probe({}, clock, canary);
  EXPECT_EQ(probe.cpus(), allowed_cpus());
  StabilityReading before = probe.read("before", false);
  ASSERT_TRUE(before.load) << before.load.unavailable;
  EXPECT_GE(before.load.value->one, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  StabilityReading after = probe.read("after", false);
  ASSERT_TRUE(after.use) << after.use.unavailable;
  EXPECT_GE(after.use.value->seconds, 0.3);
  EXPECT_EQ(after.use.value->cpus, static_cast<int>(allowed_cpus().size()));
  EXPECT_LE(after.use.value->other_share(), 1.0 + 0.1);  // a tick's rounding on each CPU at most
  EXPECT_TRUE(after.isolated) << after.isolated.unavailable;
}

TEST(RealProbe, TheCanaryRunsOnEachCpuOfThisMachine) {
  MonotonicClock clock;
  FixedWorkCanary canary;
  int midway_calls = 0;
  std::vector<CanaryTime> t = canary.run(allowed_cpus(), [&] { ++midway_calls; });
  EXPECT_EQ(midway_calls, 1);
  ASSERT_EQ(t.size(), allowed_cpus().size());
  for (const CanaryTime& c : t) {
    ASSERT_TRUE(c.seconds) << c.seconds.unavailable;
    EXPECT_GT(*c.seconds.value, 0);
    // Each chunk's CPU time is read inside its wall-clock interval, so the
    // median chunk's is no longer either.
    ASSERT_TRUE(c.cpu_seconds) << c.cpu_seconds.unavailable;
    EXPECT_GT(*c.cpu_seconds.value, 0);
    EXPECT_LE(*c.cpu_seconds.value, *c.seconds.value);
  }
  // A CPU the process may not use is named, not a crash or a zero.
  std::vector<CanaryTime> bad = canary.run({CPU_SETSIZE - 1}, {});
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_FALSE(bad[0].seconds);
  EXPECT_THAT(bad[0].seconds.unavailable, testing::HasSubstr("sched_setaffinity: Invalid argument"));
  EXPECT_EQ(bad[0].cpu_seconds.unavailable, bad[0].seconds.unavailable);
}

TEST(RealProbe, CpuFrequenciesWhereTheMachineHasCpufreq) {
  const int cpu = allowed_cpus().front();
  const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpufreq";
  std::vector<CpuClock> c = read_cpu_clocks("/", {cpu});
  if (!fs::exists(dir)) {
    EXPECT_EQ(c[0].cur_hz.unavailable, dir + "/scaling_cur_freq: No such file or directory");
    GTEST_SKIP() << "this machine has no cpufreq (" << dir << " is absent): frequencies and governors are unavailable";
  }
  ASSERT_TRUE(c[0].cur_hz) << c[0].cur_hz.unavailable;
  EXPECT_GT(*c[0].cur_hz.value, 1e6);
}

TEST(RealProbe, ThermalZonesWhereTheMachineHasThem) {
  Probed<std::vector<ThermalZone>> z = read_thermal_zones("/");
  if (!fs::exists("/sys/class/thermal")) {
    EXPECT_EQ(z.unavailable, "/sys/class/thermal: No such file or directory");
    GTEST_SKIP() << "this machine has no thermal zones (/sys/class/thermal is absent)";
  }
  if (!z) GTEST_SKIP() << z.unavailable;
  EXPECT_FALSE(z.value->empty());
}

TEST(RealProbe, ThrottleCountsWhereTheMachineHasThem) {
  const int cpu = allowed_cpus().front();
  const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/thermal_throttle";
  std::vector<CpuClock> c = read_cpu_clocks("/", {cpu});
  if (!fs::exists(dir)) {
    EXPECT_EQ(c[0].throttles.unavailable, dir + ": No such file or directory");
    GTEST_SKIP() << "this machine has no thermal_throttle counts (" << dir << " is absent)";
  }
  ASSERT_TRUE(c[0].throttles) << c[0].throttles.unavailable;
}

// A CPU hog outside the harness's process tree is named among the busiest
// others; one the harness started itself is its own.
TEST(RealProbe, AHogOutsideTheHarnessTreeIsNamedAndOneInsideIsItsOwn) {
  // `sh` starts the outside hog in the background and exits: the hog is
  // reparented away from this process, as another user's process would be.
  const std::string pid_file = testing_support::fresh_test_dir("harness-hog").string() + "/pid";
  Result<CommandResult> outside = run_command(
      {"sh", "-c", "sh -c 'while :; do :; done' </dev/null >/dev/null 2>&1 & echo $! > " + pid_file});
  ASSERT_TRUE(outside && outside->succeeded());
  int hog = 0;
  std::ifstream(pid_file) >> hog;
  ASSERT_GT(hog, 1);
  Result<std::unique_ptr<ChildProcess>> inside = ChildProcess::start({"sh", "-c", "while :; do :; done"});
  ASSERT_TRUE(inside) << inside.error().message;

  MonotonicClock clock;
  FixedWorkCanary canary;
  StabilityProbe probe({"/", {}, 0, 100000}, clock, canary);
  (void)probe.read("before", false);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  StabilityReading after = probe.read("after", false);
  ::kill(hog, SIGKILL);
  (*inside)->stop(0.5);
  fs::remove_all(fs::path(pid_file).parent_path());

  ASSERT_TRUE(after.use) << after.use.unavailable;
  bool named_outside = false, named_inside = false;
  for (const BusyProcess& p : after.use.value->busiest) {
    named_outside = named_outside || (p.pid == hog && p.cpu_s > 0);
    named_inside = named_inside || p.pid == (*inside)->pid();
  }
  EXPECT_TRUE(named_outside) << "the hog outside the tree (pid " << hog << ") is not among the others";
  EXPECT_FALSE(named_inside) << "the harness's own child is counted as another process";
  EXPECT_GT(after.use.value->own_s, 0);
}

}  // namespace
}  // namespace harness
