#include "probes/stability/rig_files.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/fake_device.h"

namespace harness {
namespace {

// A fake device: /sys and /proc files written under a test folder.
class FakeTree : public ::testing::Test {
 protected:
  void cpufreq(int cpu, const std::string& cur_khz, const std::string& max_khz, const std::string& governor) {
    const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpufreq/";
    tree_.put(dir + "scaling_cur_freq", cur_khz);
    tree_.put(dir + "cpuinfo_max_freq", max_khz);
    tree_.put(dir + "scaling_governor", governor);
  }
  testing_support::FakeDeviceTree tree_;
};

TEST_F(FakeTree, CpuFrequencyGovernorAndThrottleCounts) {
  cpufreq(0, "2100000\n", "3000000\n", "performance\n");
  tree_.put("/sys/devices/system/cpu/cpu0/thermal_throttle/core_throttle_count", "3\n");
  tree_.put("/sys/devices/system/cpu/cpu0/thermal_throttle/package_throttle_count", "17\n");
  tree_.put("/sys/devices/system/cpu/cpu0/thermal_throttle/core_throttle_max_time_ms", "12\n");  // not a count
  std::vector<CpuClock> c = read_cpu_clocks(tree_.root(), {0});
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].cpu, 0);
  EXPECT_EQ(c[0].cur_hz.value, 2.1e9);
  EXPECT_EQ(c[0].max_hz.value, 3.0e9);
  EXPECT_EQ(c[0].governor.value, "performance");
  ASSERT_TRUE(c[0].throttles);
  EXPECT_EQ(*c[0].throttles.value, (std::map<std::string, std::uint64_t>{{"core", 3}, {"package", 17}}));
}

TEST_F(FakeTree, AbsentCpufreqAndThrottleFilesAreUnavailableNamingTheFile) {
  tree_.put("/sys/devices/system/cpu/cpu1/online", "1\n");
  std::vector<CpuClock> c = read_cpu_clocks(tree_.root(), {1});
  ASSERT_EQ(c.size(), 1u);
  EXPECT_FALSE(c[0].cur_hz);
  EXPECT_EQ(c[0].cur_hz.unavailable, tree_.at("/sys/devices/system/cpu/cpu1/cpufreq/scaling_cur_freq") +
                                         ": No such file or directory");
  EXPECT_EQ(c[0].max_hz.unavailable, tree_.at("/sys/devices/system/cpu/cpu1/cpufreq/cpuinfo_max_freq") +
                                         ": No such file or directory");
  EXPECT_EQ(c[0].governor.unavailable, tree_.at("/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor") +
                                           ": No such file or directory");
  EXPECT_EQ(c[0].throttles.unavailable, tree_.at("/sys/devices/system/cpu/cpu1/thermal_throttle") +
                                            ": No such file or directory");
  tree_.put("/sys/devices/system/cpu/cpu1/thermal_throttle/core_throttle_max_time_ms", "0\n");
  EXPECT_EQ(read_cpu_clocks(tree_.root(), {1})[0].throttles.unavailable,
            tree_.at("/sys/devices/system/cpu/cpu1/thermal_throttle") + ": no *_throttle_count files");
}

TEST_F(FakeTree, MalformedCpufreqAndThrottleFilesAreUnavailableNamingTheFile) {
  cpufreq(0, "fast\n", "\n", "on demand\n");
  tree_.put("/sys/devices/system/cpu/cpu0/thermal_throttle/core_throttle_count", "-1\n");
  std::vector<CpuClock> c = read_cpu_clocks(tree_.root(), {0});
  EXPECT_EQ(c[0].cur_hz.unavailable,
            tree_.at("/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq") + ": not a number: \"fast\"");
  EXPECT_EQ(c[0].max_hz.unavailable, tree_.at("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq") + ": not a number: \"\"");
  EXPECT_EQ(c[0].governor.unavailable,
            tree_.at("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor") + ": not one word: \"on demand\"");
  EXPECT_EQ(c[0].throttles.unavailable,
            tree_.at("/sys/devices/system/cpu/cpu0/thermal_throttle/core_throttle_count") + ": not a count: \"-1\"");
}

TEST_F(FakeTree, ThermalZonesInZoneOrderEachWithItsOwnReason) {
  tree_.put("/sys/class/thermal/thermal_zone10/type", "gpu-thermal\n");
  tree_.put("/sys/class/thermal/thermal_zone10/temp", "51250\n");
  tree_.put("/sys/class/thermal/thermal_zone2/type", "x86_pkg_temp\n");
  tree_.put("/sys/class/thermal/thermal_zone2/temp", "45000\n");
  tree_.put("/sys/class/thermal/thermal_zone3/type", "acpitz\n");
  tree_.put("/sys/class/thermal/thermal_zone3/temp", "hot\n");
  tree_.put("/sys/class/thermal/cooling_device0/type", "Processor\n");
  Probed<std::vector<ThermalZone>> z = read_thermal_zones(tree_.root());
  ASSERT_TRUE(z) << z.unavailable;
  ASSERT_EQ(z.value->size(), 3u);
  const auto& zones = *z.value;
  EXPECT_EQ(zones[0].zone, "thermal_zone2");
  EXPECT_EQ(zones[0].type, "x86_pkg_temp");
  EXPECT_EQ(zones[0].celsius.value, 45.0);
  EXPECT_EQ(zones[1].zone, "thermal_zone3");
  EXPECT_EQ(zones[1].celsius.unavailable, tree_.at("/sys/class/thermal/thermal_zone3/temp") + ": not a number: \"hot\"");
  EXPECT_EQ(zones[2].zone, "thermal_zone10");
  EXPECT_DOUBLE_EQ(*zones[2].celsius.value, 51.25);
}

TEST_F(FakeTree, NoThermalZonesIsUnavailable) {
  EXPECT_EQ(read_thermal_zones(tree_.root()).unavailable, tree_.at("/sys/class/thermal") + ": No such file or directory");
  tree_.put("/sys/class/thermal/cooling_device0/type", "Processor\n");
  EXPECT_EQ(read_thermal_zones(tree_.root()).unavailable, tree_.at("/sys/class/thermal") + ": no thermal_zone* entries");
}

TEST_F(FakeTree, LoadAverage) {
  EXPECT_EQ(read_load_average(tree_.root()).unavailable, tree_.at("/proc/loadavg") + ": No such file or directory");
  tree_.put("/proc/loadavg", "0.52 0.58 0.59 1/467 12345\n");
  Probed<LoadAverage> l = read_load_average(tree_.root());
  ASSERT_TRUE(l);
  EXPECT_EQ(l.value->one, 0.52);
  EXPECT_EQ(l.value->five, 0.58);
  EXPECT_EQ(l.value->fifteen, 0.59);
  tree_.put("/proc/loadavg", "0.52 high\n");
  EXPECT_EQ(read_load_average(tree_.root()).unavailable, tree_.at("/proc/loadavg") + ": not three load averages: \"0.52 high\"");
}

TEST_F(FakeTree, BoostFromCpufreqOrIntelPstate) {
  EXPECT_EQ(read_boost(tree_.root()).unavailable,
            tree_.at("/sys/devices/system/cpu/cpufreq/boost") + ": No such file or directory; " +
                tree_.at("/sys/devices/system/cpu/intel_pstate/no_turbo") + ": No such file or directory");
  tree_.put("/sys/devices/system/cpu/intel_pstate/no_turbo", "1\n");
  EXPECT_EQ(read_boost(tree_.root()).value, "off");
  tree_.put("/sys/devices/system/cpu/intel_pstate/no_turbo", "0\n");
  EXPECT_EQ(read_boost(tree_.root()).value, "on");
  tree_.put("/sys/devices/system/cpu/cpufreq/boost", "0\n");
  EXPECT_EQ(read_boost(tree_.root()).value, "off");
  tree_.put("/sys/devices/system/cpu/cpufreq/boost", "2\n");
  EXPECT_EQ(read_boost(tree_.root()).unavailable, tree_.at("/sys/devices/system/cpu/cpufreq/boost") + ": neither 0 nor 1: \"2\"");
}

TEST_F(FakeTree, IsolatedCpus) {
  EXPECT_EQ(read_isolated(tree_.root()).unavailable, tree_.at("/sys/devices/system/cpu/isolated") + ": No such file or directory");
  tree_.put("/sys/devices/system/cpu/isolated", "\n");
  EXPECT_EQ(read_isolated(tree_.root()).value, "none");
  tree_.put("/sys/devices/system/cpu/isolated", "2-3\n");
  EXPECT_EQ(read_isolated(tree_.root()).value, "2-3");
}

// The harness (pid 100, "harness") runs a local agent (200, "harness"),
// which runs the workload (300) and a load (301, with a worker 302);
// "cc1plus" (400, 402) and "make" (401) are another engineer's.
TEST_F(FakeTree, CpuUseTakesTheHarnessTreeOffTheBusyTimeAndNamesTheBusiestOthers) {
  // cpu0 and cpu1: user nice system idle iowait irq softirq steal guest guest_nice
  tree_.put("/proc/stat",
      "cpu  2000 0 200 9000 0 0 0 100 0 0\ncpu0 1000 0 100 4500 0 0 0 50 0 0\ncpu1 1000 0 100 4500 0 0 0 50 0 0\n"
      "intr 1 2 3\nctxt 4\n");
  tree_.process(1, "init", 0, 10, 10);
  tree_.process(50, "bash", 1, 5, 5);
  tree_.process(100, "harness", 50, 20, 10);
  tree_.process(200, "harness", 100, 5, 5, 30);
  tree_.process(300, "infer", 200, 100, 0);
  tree_.process(301, "stress-ng", 200, 0, 0);
  tree_.process(302, "stress-ng-cpu", 301, 300, 0);
  tree_.process(400, "cc1plus", 401, 50, 10);
  tree_.process(401, "make", 1, 1, 1);
  CpuSnapshot before = take_cpu_snapshot(tree_.root(), 1'000'000'000);
  ASSERT_EQ(before.unavailable, "");
  EXPECT_EQ(before.processes.size(), 9u);
  EXPECT_EQ(before.cpus.at(1).busy, 1150u);
  EXPECT_EQ(before.cpus.at(1).steal, 50u);

  // 2 s later: cpu0 and cpu1 were busy 150 + 60 + 10 steal and 170 + 40 ticks.
  tree_.put("/proc/stat", "cpu  0 0 0 0 0 0 0 0 0 0\ncpu0 1150 0 160 4600 0 0 0 60 0 0\ncpu1 1170 0 140 4600 0 0 0 50 0 0\n");
  tree_.process(100, "harness", 50, 25, 10);      // +5
  tree_.process(200, "harness", 100, 10, 5, 60);  // +5, reaped +30 (finished iterations)
  tree_.process(300, "infer", 200, 140, 0);       // +40
  tree_.process(302, "stress-ng-cpu", 301, 400, 0);  // +100
  tree_.process(400, "cc1plus", 401, 130, 10);    // +80
  tree_.process(402, "cc1plus", 401, 40, 0, 0, 900);  // new: +40
  tree_.remove("/proc/1");  // gone meanwhile
  CpuSnapshot after = take_cpu_snapshot(tree_.root(), 3'000'000'000);
  ASSERT_EQ(after.unavailable, "");

  std::vector<int> tree = own_process_tree(after, 200);
  std::sort(tree.begin(), tree.end());
  EXPECT_EQ(tree, (std::vector<int>{100, 200, 300, 301, 302}));

  Probed<CpuUse> use = cpu_use_between(before, after, {0, 1}, 200, 100, 2);
  ASSERT_TRUE(use) << use.unavailable;
  EXPECT_DOUBLE_EQ(use.value->seconds, 2);
  EXPECT_EQ(use.value->cpus, 2);
  EXPECT_DOUBLE_EQ(use.value->busy_s, 4.3);   // 220 + 210 ticks
  EXPECT_DOUBLE_EQ(use.value->steal_s, 0.1);
  EXPECT_DOUBLE_EQ(use.value->own_s, 1.8);    // 5 + 5 + 30 + 40 + 100 ticks
  EXPECT_DOUBLE_EQ(use.value->other_share(), (4.3 - 1.8) / 4);
  EXPECT_DOUBLE_EQ(use.value->steal_share(), 0.1 / 4);
  ASSERT_EQ(use.value->busiest.size(), 2u);
  EXPECT_EQ(use.value->busiest[0].pid, 400);
  EXPECT_EQ(use.value->busiest[0].name, "cc1plus");
  EXPECT_DOUBLE_EQ(use.value->busiest[0].cpu_s, 0.8);
  EXPECT_EQ(use.value->busiest[1].pid, 402);
  EXPECT_DOUBLE_EQ(use.value->busiest[1].cpu_s, 0.4);

  // Only cpu1 (a pinned workload): its busy time against one CPU's capacity.
  Probed<CpuUse> one = cpu_use_between(before, after, {1}, 200, 100, 5);
  EXPECT_DOUBLE_EQ(one.value->busy_s, 2.1);
  EXPECT_DOUBLE_EQ(one.value->other_share(), (2.1 - 1.8) / 2);
  EXPECT_EQ(one.value->busiest.size(), 2u);  // bash and make used nothing: not named

  // A VM's ticks may add up to more than the wall time: never above all of it.
  EXPECT_EQ((CpuUse{1.0, 1, 1.08, 0.27, 0.0, {}}).other_share(), 1.0);
  EXPECT_EQ((CpuUse{1.0, 1, 0.1, 0.0, 0.3, {}}).other_share(), 0.0);
}

TEST_F(FakeTree, AReusedPidCountsAllItUsed) {
  tree_.put("/proc/stat", "cpu0 100 0 0 0 0 0 0 0\n");
  tree_.process(500, "old", 1, 70, 0, 0, 100);
  CpuSnapshot before = take_cpu_snapshot(tree_.root(), 0);
  tree_.put("/proc/stat", "cpu0 200 0 0 0 0 0 0 0\n");
  tree_.process(500, "new", 1, 20, 0, 0, 250);
  CpuSnapshot after = take_cpu_snapshot(tree_.root(), 1'000'000'000);
  Probed<CpuUse> use = cpu_use_between(before, after, {0}, 999, 100, 5);
  ASSERT_TRUE(use) << use.unavailable;
  ASSERT_EQ(use.value->busiest.size(), 1u);
  EXPECT_EQ(use.value->busiest[0].name, "new");
  EXPECT_DOUBLE_EQ(use.value->busiest[0].cpu_s, 0.2);
}

TEST_F(FakeTree, ACommandNameWithBlanksAndParenthesesIsRead) {
  tree_.put("/proc/stat", "cpu0 100 0 0 0 0 0 0 0\n");
  tree_.process(600, "a (b) c", 1, 10, 0);
  CpuSnapshot s = take_cpu_snapshot(tree_.root(), 0);
  ASSERT_EQ(s.unavailable, "");
  EXPECT_EQ(s.processes.at(600).name, "a (b) c");
  EXPECT_EQ(s.processes.at(600).used, 10u);
}

TEST_F(FakeTree, MalformedOrAbsentProcFilesMakeTheCpuUseUnavailable) {
  CpuSnapshot none = take_cpu_snapshot(tree_.root(), 0);
  EXPECT_EQ(none.unavailable, tree_.at("/proc/stat") + ": No such file or directory");
  tree_.put("/proc/stat", "cpu  1 2 3\ncpu0 1 2 3 4\n");
  EXPECT_EQ(take_cpu_snapshot(tree_.root(), 0).unavailable,
            tree_.at("/proc/stat") + ":2: not a cpu line with 8 counters: \"cpu0 1 2 3 4\"");
  tree_.put("/proc/stat", "intr 1\n");
  EXPECT_EQ(take_cpu_snapshot(tree_.root(), 0).unavailable, tree_.at("/proc/stat") + ": no cpuN lines");
  tree_.put("/proc/stat", "cpu0 100 0 0 0 0 0 0 0\n");
  tree_.put("/proc/77/stat", "77 (x) S\n");
  CpuSnapshot bad = take_cpu_snapshot(tree_.root(), 0);
  EXPECT_EQ(bad.unavailable, tree_.at("/proc/77/stat") + ": not a process stat line: \"77 (x) S\"");
  Probed<CpuUse> use = cpu_use_between(bad, bad, {0}, 1, 100, 5);
  EXPECT_EQ(use.unavailable, bad.unavailable);

  tree_.remove("/proc/77");
  CpuSnapshot good = take_cpu_snapshot(tree_.root(), 0);
  good.t_ns = 1'000'000'000;
  CpuSnapshot earlier = take_cpu_snapshot(tree_.root(), 0);
  EXPECT_EQ(cpu_use_between(earlier, good, {3}, 1, 100, 5).unavailable, "/proc/stat: no line for cpu3");
  EXPECT_EQ(cpu_use_between(good, good, {0}, 1, 100, 5).unavailable, "no time passed between the two readings");
}

}  // namespace
}  // namespace harness
