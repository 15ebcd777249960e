// `harness rig check`'s stability section, read by the real probe from a
// fake /sys and /proc tree with a scripted canary: the exact text.
#include "reports/rig_stability.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "probes/stability/stability_probe.h"
#include "tests/support/fake_device.h"

namespace harness {
namespace {

using testing_support::ScriptedCanary;

class RigCheckStability : public ::testing::Test {
 protected:
  // Two readings half a second apart, as `rig check` takes them.
  std::pair<StabilityReading, StabilityReading> read_twice(std::vector<int> cpus, ScriptedCanary& canary,
                                                           const std::function<void()>& between) {
    FakeClock clock(500'000'000);
    StabilityProbe probe({tree_.root(), std::move(cpus), 10, 5}, clock, canary);
    StabilityReading first = probe.read("before", true);
    between();
    StabilityReading second = probe.read("after", true);
    return {first, second};
  }
  testing_support::FakeDeviceTree tree_;
};

// A laptop-like board: ondemand governor, boost on, no isolated CPU, a
// compiler busy beside the harness.
TEST_F(RigCheckStability, ABusyBoardGetsItsStateAndWhatToChange) {
  for (int cpu : {0, 1}) {
    const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu);
    tree_.put(dir + "/cpufreq/scaling_cur_freq", cpu == 0 ? "2100000\n" : "1400000\n");
    tree_.put(dir + "/cpufreq/cpuinfo_max_freq", "3000000\n");
    tree_.put(dir + "/cpufreq/scaling_governor", cpu == 0 ? "ondemand\n" : "performance\n");
    tree_.put(dir + "/thermal_throttle/core_throttle_count", "0\n");
    tree_.put(dir + "/thermal_throttle/package_throttle_count", "12\n");
  }
  tree_.put("/sys/devices/system/cpu/cpufreq/boost", "1\n");
  tree_.put("/sys/devices/system/cpu/isolated", "\n");
  tree_.put("/sys/class/thermal/thermal_zone0/type", "x86_pkg_temp\n");
  tree_.put("/sys/class/thermal/thermal_zone0/temp", "51000\n");
  tree_.put("/sys/class/thermal/thermal_zone1/type", "acpitz\n");
  tree_.put("/sys/class/thermal/thermal_zone1/temp", "27800\n");
  tree_.put("/proc/loadavg", "1.52 0.98 0.71 3/412 5555\n");
  tree_.put("/proc/stat", "cpu0 1000 0 0 9000 0 0 0 0\ncpu1 1000 0 0 9000 0 0 0 0\n");
  tree_.process(10, "harness", 1, 5);
  tree_.process(400, "cc1plus", 1, 100);
  tree_.process(401, "sshd", 1, 3);
  ScriptedCanary canary;
  canary.runs = {{0.1000, 0.1010}, {0.1150, 0.1012}};
  auto [first, second] = read_twice({0, 1}, canary, [&] {
    // Half a second later: cc1plus took 45 ticks, sshd 1, the harness 2,
    // and the hypervisor stole 2 of cpu1's.
    tree_.put("/proc/stat", "cpu0 1045 0 0 9000 0 0 0 0\ncpu1 1005 0 0 9000 0 0 0 2\n");
    tree_.process(10, "harness", 1, 7);
    tree_.process(400, "cc1plus", 1, 145);
    tree_.process(401, "sshd", 1, 4);
  });
  EXPECT_EQ(render_rig_stability(first, second, {}, false),
            "stability of cpu0-1 (every CPU the workload may use):\n"
            "  cpu0  clock 2.1 GHz of 3 GHz, governor ondemand, throttle counts core 0, package 12\n"
            "  cpu1  clock 1.4 GHz of 3 GHz, governor performance, throttle counts core 0, package 12\n"
            "  thermal  thermal_zone0 (x86_pkg_temp) 51.0 °C, thermal_zone1 (acpitz) 27.8 °C\n"
            "  load average  1.52, 0.98, 0.71 (1, 5, 15 min)\n"
            "  others  50 % of the CPUs over 0.5 s (steal 2 %); busiest: cc1plus (pid 400) 90 % of a CPU, sshd "
            "(pid 401) 2 % of a CPU\n"
            "  canary  cpu0 100.0 ms then 115.0 ms (+15.0 %), cpu1 101.0 ms then 101.2 ms (+0.2 %)\n"
            "  boost  on\n"
            "  isolated CPUs  none\n"
            "to make runs on this rig steadier:\n"
            "  - set the governor of cpu0 to performance (cpupower frequency-set -g performance): other governors "
            "move the clock with the load\n"
            "  - turn boost off (0 > /sys/devices/system/cpu/cpufreq/boost, or 1 > intel_pstate/no_turbo): a boosted "
            "clock depends on temperature and on the other cores\n"
            "  - isolate the workload's CPUs (isolcpus=<cpus> on the kernel command line) and pin the workload there "
            "([workload] cpus): the scheduler then keeps other work off them\n"
            "  - stop the busy processes: cc1plus (pid 400, 90 % of a CPU)\n"
            "  - the hypervisor took 2 % of the CPUs (steal): a virtual machine shares its host; use a dedicated one\n"
            "  - the canary on cpu0 moved +15 % between two runs a moment apart, beyond canary_change_max (10 %): "
            "runs on this rig will often read unstable\n");
  const nlohmann::json j = rig_stability_json(first, second, {}, false);
  EXPECT_EQ(j["advice"].size(), 6u);
  EXPECT_EQ(j["readings"][1]["cpus"][0]["governor"], "ondemand");
}

// What this development machine (a VM) exposes: no cpufreq, no thermal
// zones, no throttle counts; an isolated, pinned, quiet CPU otherwise. Its
// agent reads the canary's CPU time, which the line then shows (the gate
// compares it).
TEST_F(RigCheckStability, AQuietPinnedBoardWithoutCpufreqSaysWhatItLacks) {
  tree_.put("/sys/devices/system/cpu/isolated", "3\n");
  tree_.put("/proc/loadavg", "0.00 0.01 0.05 1/90 77\n");
  tree_.put("/proc/stat", "cpu3 10 0 0 9000 0 0 0 0\n");
  tree_.process(10, "harness", 1, 5);
  ScriptedCanary canary;
  canary.runs = {{0.1000}, {0.1300}};
  canary.cpu_runs = {{0.0990}, {0.0992}};
  auto [first, second] = read_twice({3}, canary, [] {});
  const std::string cpu3 = tree_.root() + "/sys/devices/system/cpu/cpu3";
  EXPECT_EQ(render_rig_stability(first, second, {}, true),
            "stability of cpu3 (the workload's CPUs):\n"
            "  cpu3  clock unavailable (" + cpu3 + "/cpufreq/scaling_cur_freq: No such file or directory), governor "
            "unavailable (" + cpu3 + "/cpufreq/scaling_governor: No such file or directory), throttle counts "
            "unavailable (" + cpu3 + "/thermal_throttle: No such file or directory)\n"
            "  thermal  unavailable (" + tree_.root() + "/sys/class/thermal: No such file or directory)\n"
            "  load average  0.00, 0.01, 0.05 (1, 5, 15 min)\n"
            "  others  0 % of the CPUs over 0.5 s (steal 0 %); busiest: none\n"
            "  canary  (CPU time) cpu3 99.0 ms then 99.2 ms (+0.2 %)\n"
            "  boost  unavailable (" + tree_.root() + "/sys/devices/system/cpu/cpufreq/boost: No such file or directory; " +
            tree_.root() + "/sys/devices/system/cpu/intel_pstate/no_turbo: No such file or directory)\n"
            "  isolated CPUs  3\n"
            "nothing to change: the rig reads as steady\n");
}

}  // namespace
}  // namespace harness
