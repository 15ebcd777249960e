// The device under test as a run sees it: what must happen *on the device*
// (workload iterations timed there, counters, ceiling microbenchmarks,
// background load, files). Two implementations behind one interface:
//   LocalDevice  (local_device.h)  does the work in this process: the agent
//                                  runs it on the device, tests use it directly;
//   RemoteDevice (remote_device.h) asks an agent over a transport
//                                  (protocol.h) and maps device times onto
//                                  this host's monotonic clock.
// The host-side parts of a run (analyzer, power meter, the window) stay in
// harness/runner/.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "harness/base/result.h"
#include "harness/levels/counters.h"
#include "harness/levels/roofline.h"
#include "harness/model/progress.h"
#include "harness/scenario/scenario.h"
#include "probes/stability/stability_reading.h"

namespace harness {

// What the device says about itself (the agent's hello).
struct DeviceInfo {
  int protocol = 0;
  std::string harness_version;
  std::vector<std::string> capabilities;   // "workload", "counters", "roofline", "load", "file", "stability", "perf_event", "stress-ng"
  std::map<std::string, std::string> context;  // host, kernel, cpu_model, cpu_count, governor, os_release, version.<name>
  std::vector<std::string> missing;        // what the device lacks, each with its reason
  bool offers(const std::string& capability) const {
    return std::find(capabilities.begin(), capabilities.end(), capability) != capabilities.end();
  }
};

// How the measured iterations of one window are run (level 4).
struct IterationPlan {
  std::int64_t warmup = 0;
  std::int64_t iterations = 1;     // at least this many measured iterations
  double min_duration_s = 0;       // and at least this long
  double run_timeout_s = 600;      // the whole measured window
  double iteration_timeout_s = 60;
  // Level 2 read in this window: its session opened before the workload
  // starts, read right before the first measured iteration, between its
  // `windows` (over `iterations` here, which is this plan's), and right after
  // the last measured one. Absent: no counters.
  std::optional<CountersConfig> counters{};
};

// A window with a min_duration runs past the planned count until the
// duration is reached, but never past this many iterations: what a
// recording can hold (a million samples are ~25 MiB of it) with room for a
// few conditions. The device stops there; the host refuses more.
inline constexpr std::int64_t kMaxWindowIterations = 2'000'000;
// The most measured iterations a window of `p` gives.
inline std::int64_t most_iterations(const IterationPlan& p) {
  return p.min_duration_s > 0 ? std::max(p.iterations, kMaxWindowIterations) : p.iterations;
}

// Measured iterations as times on the *host's* monotonic clock (a remote
// device's times are mapped through the clock sync), delivered in batches.
struct IterationBatch {
  std::vector<std::uint64_t> start_ns, end_ns;
};
using IterationSink = std::function<void(const IterationBatch&)>;

struct WorkloadWindow {
  std::uint64_t measuring_ns = 0;  // host clock: warm-up done, first measured iteration starts
  std::uint64_t end_ns = 0;        // host clock: last measured iteration ended
  std::int64_t iterations = 0;
  std::optional<CountersRecording> counters;  // the plan's counters, read at the window's edges
};

// How the rig's stability readings around one acquisition are taken
// ([rig.stability]; probes/stability): on the workload's CPUs.
struct StabilityPlan {
  std::vector<int> cpus;   // [workload] cpus; empty: every CPU the device lets the workload use
  bool first_cpu = false;  // [workload] cpus = "first"
  double interval_s = 0;   // readings inside the acquisition; 0: only at its ends
};

// How a background load ended once stopped, as the device saw it.
struct LoadStopped {
  std::string end;     // "killed by signal 15 (Terminated)"
  std::string output;  // its last output
};

class Device {
 public:
  virtual ~Device() = default;
  virtual const DeviceInfo& info() const = 0;

  // Warm-up, then measured iterations as the plan says; batches arrive
  // while it runs. An Error keeps what the sink already received.
  virtual Result<WorkloadWindow> run_workload(const Workload& workload, const IterationPlan& plan,
                                              const IterationSink& sink, std::stop_token stop) = 0;
  // Level 2 on the device: counters read around the configured iterations.
  // Its steps (progress.h StepProgress) go to `steps` as they happen; null: nobody watches.
  virtual Result<CountersRecording> measure_counters(const Workload& workload, const CountersConfig& config,
                                                     std::stop_token stop, RunProgress* steps) = 0;
  // Level 1 on the device: ceilings (bandwidth and compute tables), vendor
  // tools, built-in kernel timings, each a step reported to `steps`. The
  // profile is read by the host.
  virtual Result<RooflineRecording> measure_roofline(const RooflineConfig& config, std::stop_token stop,
                                                     RunProgress* steps) = 0;

  // Background load: started, checked alive, stopped. Every load a device
  // started is stopped when the device (or the agent, or its link) ends.
  virtual Result<int> start_load(const std::vector<std::string>& argv) = 0;
  virtual Status check_load(int id) = 0;
  virtual Result<LoadStopped> stop_load(int id) = 0;

  // The rig's steadiness around an acquisition: begin takes the "before"
  // reading (the canary runs, about 100 ms) and starts the readings at the
  // plan's interval; end takes the "after" one and returns them all in
  // order. A begin while a series is open starts a new one.
  virtual Status begin_stability(const StabilityPlan& plan) = 0;
  virtual Result<std::vector<StabilityReading>> end_stability() = 0;

  // A file the run needs from the device (a profile, a dump), at most
  // max_bytes, with its sha256 checked on arrival.
  virtual Result<std::string> fetch_file(const std::string& path, std::uint64_t max_bytes) = 0;
};

}  // namespace harness
