// The acquisition half of a live run: each level's probes fill its part of
// the Recording. One file per level (acquire_<level>.cc). A probe that cannot
// measure records "unavailable: reason"; an Error means the run must stop
// (it is stored as aborted with that reason).
#pragma once

#include <functional>
#include <memory>
#include <stop_token>

#include "harness/base/result.h"
#include "harness/levels/recording.h"
#include "harness/model/progress.h"
#include "harness/scenario/scenario.h"
#include "probes/clock.h"

namespace harness {

class Device;

// The host-side instruments that cover one workload window ([rig] window):
// the level owning that window calls open() right before its workload and
// close() right after, and fills `record` with the window's times.
struct WindowHooks {
  std::string level;      // "latency" or "counters"
  std::string condition;  // latency: the load condition
  std::function<Status()> open;   // returns once the analyzer samples
  std::function<Status()> close;
  RigRecording::Window* record = nullptr;
  // The analyzer's samples so far, for progress; empty: no capture shares the window.
  std::function<std::uint64_t()> captured_samples;
};

struct AcquireContext {
  const Scenario& scenario;
  Clock& clock;
  std::stop_token stop;  // set by SIGINT/SIGTERM: stop at the next iteration
  // Where a probe writes raw files (captures); it lists each one in
  // Recording::files by its name relative to this folder.
  std::string artifact_dir;
  // Where the workload runs (level 4); null: this process (a LocalDevice).
  Device* device = nullptr;
  WindowHooks* window = nullptr;  // null: no host-side instrument shares a window
  // Level 2 read at the edges of level 4's window (counters_ride_latency_window):
  // the part of the recording level 4 fills from its window's reply; null:
  // level 2 runs on its own.
  CountersRecording* counters_in_window = nullptr;
  RunProgress* progress = nullptr;  // null: nobody watches (the agent, tests)
  // The seed each round's order of candidate and reference is drawn from
  // (a [reference] with order "random"): the scenario's, or drawn per run.
  std::uint64_t pairing_seed = 0;
  // Where the rig's stability readings around each acquisition on the
  // device go ([rig.stability], stability_readings.h); null: none are taken.
  StabilityRecording* stability = nullptr;
};

// Levels 1 and 2 run on the device (Device::measure_roofline,
// measure_counters); level 1's layer profile is a host file, read here and
// checked now, so that a bad file stops the run with its file:line error.
Status read_roofline_profile(const LayerProfileConfig& profile, RooflineRecording& out);
// Level 1 on the device. With a same-run reference, while a gating kernel
// ([compare] gating names "<kernel>.achieved") cannot be
// told from its reference and [compare] allows (max_rounds, time_budget),
// another look of [reference] rounds of the paired kernels alone follows,
// appended to theirs (docs/parts/compare.md, "More rounds when undecided").
Result<RooflineRecording> measure_roofline_until_decided(const AcquireContext& context, const RooflineConfig& config,
                                                         RunProgress* progress);
// Level 3 on its own: an imported capture, or a live capture not tied to a window.
Status acquire_ddr(const AcquireContext& context, DdrRecording& out);

// A live capture ([ddr.acquire]) running beside a workload window: start()
// arms it on a thread of its own and returns once samples flow; finish()
// stops it and records the file and its first and last sample on the host's
// monotonic clock.
class WindowCapture {
 public:
  explicit WindowCapture(const AcquireContext& context, DdrRecording& out);
  ~WindowCapture();
  Status start();
  Status finish();
  // Host monotonic ns of the first and last sample (valid after finish()).
  std::uint64_t first_sample_ns() const { return first_ns_; }
  std::uint64_t last_sample_ns() const { return last_ns_; }
  // Samples received so far (0 before start()); the acquisition thread
  // counts them atomically.
  std::uint64_t samples_so_far() const;

 struct Running;

 private:
  const AcquireContext& ctx_;
  DdrRecording& out_;
  std::unique_ptr<Running> running_;
  std::uint64_t first_ns_ = 0, last_ns_ = 0;
};

// Level 5: the reference and device dumps become files of the run (hard
// links or copies; on_device dumps fetched through the rig's file.read).
// Their headers and pairing are checked here, so a malformed dump stops the
// run as bad input before the analysis.
Status acquire_accuracy(const AcquireContext& context, AccuracyRecording& out);

// The headers, sidecars and pairing of level 5's dumps (the reference's
// first, then each device set), and the layer map: what a run checks before
// streaming any tensor, and what the pre-flight checks (preflight.h).
Status check_accuracy_dumps(const AccuracyConfig& config, const std::vector<std::string>& dump_paths);
// One set of host dumps exists ("s.toml:9:13: [accuracy] reference: PATH: no such file or directory").
Status check_accuracy_source(const AccuracyDumpSource& source, const std::string& role);
// Level 1's per-layer profile read and parsed as a run reads it.
Status check_layer_profile(const LayerProfileConfig& profile);

// Level 4 from the host: loads, the device's iterations, power, the window.
Status acquire_latency(const AcquireContext& context, LatencyRecording& out);
// Plan-time checks of level 4 (workload and load programs, power source), run before anything starts.
Status check_latency_plan(const Scenario& scenario);
// "builtin:gemm", "command:./infer", "stream:./serve".
std::string workload_source(const Workload& workload);

}  // namespace harness
