// Readings of the rig's steadiness (stability_reading.h) taken on the
// device: one at a time (StabilityProbe), or a series around an acquisition
// (StabilitySampler: before, during at an interval, after). The files come
// from a root folder, the canary and the clock are interfaces, so tests run
// it on a fake /sys and /proc tree with a fake canary.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "probes/clock.h"
#include "probes/stability/canary.h"
#include "probes/stability/rig_files.h"
#include "probes/stability/stability_reading.h"

namespace harness {

struct StabilityProbeOptions {
  std::string root = "/";  // where /sys and /proc are
  std::vector<int> cpus;   // the workload's CPUs; empty: every CPU this process may use
  int own_pid = 0;         // whose process tree is the harness's own; 0: this process
  std::size_t busiest = 5;  // how many of the busiest other processes a reading names
};

// The CPUs this process may run on (sched_getaffinity), in order.
std::vector<int> allowed_cpus();

class StabilityProbe {
 public:
  StabilityProbe(StabilityProbeOptions options, Clock& clock, Canary& canary);

  // One reading labelled `at`. With `canary`, the canary runs on each CPU and
  // the CPUs' current clocks are read while it runs (under load, as at the
  // other end); the CPU use covers the time since the previous reading, up
  // to this reading's start (its own canary is not in it).
  StabilityReading read(const std::string& at, bool canary);
  const std::vector<int>& cpus() const { return options_.cpus; }

 private:
  StabilityProbeOptions options_;
  Clock& clock_;
  Canary& canary_;
  double ticks_per_second_;
  std::optional<CpuSnapshot> previous_;
  std::uint64_t first_ns_ = 0;
};

// "before" now (with the canary), then "during" every `interval_s` on a
// thread of its own (0: none), and "after" (with the canary) at finish().
class StabilitySampler {
 public:
  StabilitySampler(StabilityProbeOptions options, Clock& clock, Canary& canary, double interval_s);
  ~StabilitySampler();  // stops the thread; the readings are dropped
  StabilitySampler(const StabilitySampler&) = delete;
  StabilitySampler& operator=(const StabilitySampler&) = delete;

  // Every reading in order, the last "after".
  std::vector<StabilityReading> finish();

 private:
  void stop_thread();

  StabilityProbe probe_;
  std::mutex mutex_;  // guards readings_ and the probe against the thread
  std::condition_variable wake_;
  bool stopping_ = false;
  std::vector<StabilityReading> readings_;
  std::thread during_;
};

}  // namespace harness
