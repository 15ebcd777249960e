// The acquisition half of a live run: each level's probes fill its part of
// the Recording. One file per level (acquire_<level>.cc). A probe that cannot
// measure records "unavailable: reason"; an Error means the run must stop
// (it is stored as aborted with that reason).
#pragma once

#include <stop_token>

#include "harness/base/result.h"
#include "harness/levels/recording.h"
#include "harness/scenario/scenario.h"
#include "probes/clock.h"

namespace harness {

struct AcquireContext {
  const Scenario& scenario;
  Clock& clock;
  std::stop_token stop;  // set by SIGINT/SIGTERM: stop at the next iteration
  // Where a probe writes raw files (captures); it lists each one in
  // Recording::files by its name relative to this folder.
  std::string artifact_dir;
};

Status acquire_roofline(const AcquireContext& context, RooflineRecording& out);
Status acquire_counters(const AcquireContext& context, CountersRecording& out);
Status acquire_ddr(const AcquireContext& context, DdrRecording& out);
Status acquire_latency(const AcquireContext& context, LatencyRecording& out);
// Plan-time checks of level 4 (workload and load programs, power source), run before anything starts.
Status check_latency_plan(const Scenario& scenario);

// The error every probe returns when the stop token was set.
Error interrupted_error();

}  // namespace harness
