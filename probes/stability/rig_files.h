// The files a Linux device exposes about its CPUs' clocks, temperatures and
// use, read under a root folder: "/" on a device, a folder of fake /sys and
// /proc files in tests. A file that is absent or does not hold what it
// should makes its figure unavailable, naming the file and the OS error or
// what was wrong with its contents.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "probes/stability/stability_reading.h"

namespace harness {

// `root` joined with an absolute path: ("/", "/proc/stat") -> "/proc/stat",
// ("/tmp/fake", "/proc/stat") -> "/tmp/fake/proc/stat".
std::string under_root(const std::string& root, std::string_view path);

// cpufreq (scaling_cur_freq, cpuinfo_max_freq, scaling_governor) and
// thermal_throttle/*_throttle_count of each CPU.
std::vector<CpuClock> read_cpu_clocks(const std::string& root, const std::vector<int>& cpus);
// Only the current frequencies (cheap: read while the canary runs).
void read_current_frequencies(const std::string& root, std::vector<CpuClock>& cpus);
// /sys/class/thermal/thermal_zone*/{type,temp}, in zone order.
Probed<std::vector<ThermalZone>> read_thermal_zones(const std::string& root);
// /proc/loadavg.
Probed<LoadAverage> read_load_average(const std::string& root);
// Whether the CPUs may boost above their base clock: cpufreq/boost ("1" on)
// or intel_pstate/no_turbo ("0" on), as "on" or "off".
Probed<std::string> read_boost(const std::string& root);
// /sys/devices/system/cpu/isolated ("" when none: "none").
Probed<std::string> read_isolated(const std::string& root);

// CPU time counters at one moment, in clock ticks (USER_HZ).
struct CpuTicks {
  std::uint64_t busy = 0;   // user+nice+system+irq+softirq+steal
  std::uint64_t steal = 0;
};
struct ProcessTicks {
  int pid = 0, ppid = 0;
  std::string name;
  std::uint64_t used = 0;    // utime+stime
  std::uint64_t reaped = 0;  // cutime+cstime: children it waited for
  std::uint64_t start = 0;   // starttime: tells a reused pid apart
};
struct CpuSnapshot {
  std::uint64_t t_ns = 0;
  std::map<int, CpuTicks> cpus;               // /proc/stat's cpuN lines
  std::map<int, ProcessTicks> processes;      // /proc/<pid>/stat
  std::string unavailable;  // the first file that could not be read; set: nothing above is usable
};
CpuSnapshot take_cpu_snapshot(const std::string& root, std::uint64_t t_ns);

// The pids of the harness's own process tree in `snapshot`: the highest
// ancestor of `own_pid` reached through parents of the same name (a host
// `harness run` above its local `harness agent`), and all its descendants
// (the workload, the loads).
std::vector<int> own_process_tree(const CpuSnapshot& snapshot, int own_pid);

// What the workload's `cpus` did between two snapshots (CpuUse), the `top`
// busiest processes outside the own tree with their CPU time.
Probed<CpuUse> cpu_use_between(const CpuSnapshot& before, const CpuSnapshot& after, const std::vector<int>& cpus,
                               int own_pid, double ticks_per_second, std::size_t top);

}  // namespace harness
