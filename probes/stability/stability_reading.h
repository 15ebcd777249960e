// What a device exposes about its own steadiness, read at one moment: the
// CPUs' frequencies, governors and throttle counts, the thermal zones, the
// load average, the CPU time others took since the previous reading and a
// fixed canary's time. Plain structs: the probe (stability_probe.h) fills
// them on the device, the agent sends them, the Recording keeps them, and
// the gate (harness/levels/stability.h) judges them. Every figure the
// device does not expose carries the reason instead of a value, never a 0.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace harness {

// A value read from the device, or why it could not be ("<file>: No such
// file or directory", "<file>: not a number: \"abc\"").
template <class T>
struct Probed {
  std::optional<T> value;
  std::string unavailable;

  static Probed known(T v) { return {std::move(v), {}}; }
  static Probed missing(std::string why) { return {std::nullopt, std::move(why)}; }
  explicit operator bool() const { return value.has_value(); }
};

// One CPU's cpufreq and thermal_throttle files.
struct CpuClock {
  int cpu = 0;
  Probed<double> cur_hz;  // cpufreq/scaling_cur_freq (kHz in the file)
  Probed<double> max_hz;  // cpufreq/cpuinfo_max_freq
  Probed<std::string> governor;  // cpufreq/scaling_governor
  // thermal_throttle/*_throttle_count by file stem ("core", "package")
  Probed<std::map<std::string, std::uint64_t>> throttles;
};

struct ThermalZone {
  std::string zone;  // "thermal_zone0"
  std::string type;  // "x86_pkg_temp", "cpu-thermal"; empty when unreadable
  Probed<double> celsius;  // temp (millidegrees in the file)
};

struct LoadAverage {
  double one = 0, five = 0, fifteen = 0;
};

// A process outside the harness's own tree and the CPU time it used
// between two readings.
struct BusyProcess {
  int pid = 0;
  std::string name;  // its comm
  double cpu_s = 0;
};

// The workload's CPUs between the previous reading and this one (/proc/stat,
// /proc/<pid>/stat): how busy they were, how much of that was the harness's
// own process tree, and how much the hypervisor stole.
struct CpuUse {
  double seconds = 0;  // the interval
  int cpus = 0;        // how many CPUs the shares are of
  double busy_s = 0;   // user+nice+system+irq+softirq+steal on those CPUs
  double steal_s = 0;  // steal on those CPUs (part of busy_s)
  double own_s = 0;    // the harness's own process tree, on any CPU
  std::vector<BusyProcess> busiest;  // the busiest others, most first

  // Others' share of the CPUs' capacity, steal included: what the harness
  // itself did not use of what was busy (its own time is taken off whole,
  // wherever it ran, so on pinned CPUs this is a lower bound).
  double other_share() const;
  double steal_share() const;
};

// The canary on one CPU: the fixed work's time (canary.h), on the wall
// clock and in the thread's own CPU time. The CPU time leaves out the moments
// the thread waited for the CPU (level 4's stress-ng, a neighbour: judged
// apart as others' share), so it moves only with what slows the work itself
// (a lower clock, throttling, a sibling hyperthread, cache pressure).
struct CanaryTime {
  int cpu = 0;
  Probed<double> seconds;
  Probed<double> cpu_seconds{};  // CLOCK_THREAD_CPUTIME_ID; absent from older agents
};

struct StabilityReading {
  std::string at;  // "before", "during", "after"
  double t_s = 0;  // since the series' first reading, on the device's clock
  std::vector<CpuClock> cpus;  // the workload's CPUs
  Probed<std::vector<ThermalZone>> thermal;
  Probed<LoadAverage> load;
  Probed<CpuUse> use;  // unavailable in a series' first reading: no interval yet
  // Run at both ends of a series, not during it (it would take the
  // workload's CPUs).
  std::vector<CanaryTime> canary;
  // What `rig check` tells the user to change: cpufreq/boost or
  // intel_pstate/no_turbo, and the kernel's isolated CPUs.
  Probed<std::string> boost;
  Probed<std::string> isolated;
};

}  // namespace harness
