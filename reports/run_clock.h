// One clock for what a run recorded: the host's monotonic clock, in seconds
// from the earliest recorded instant. `export --trace` (chrome_trace.cc)
// draws the run on it and the HTML report marks the workload's iterations on
// the DQ activity timeline and the power trace with it, so both place an
// instant the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "harness/base/result.h"
#include "harness/levels/recording.h"
#include "harness/model/run.h"

namespace harness {

struct ConditionClock {
  double origin_s = 0;         // where the condition's start_s counts from
  bool on_host_clock = false;  // false: recorded without a host time, placed after the condition before it
  double power_origin_s = 0;   // where its power readings' t_s count from: its first iteration's start
};

struct RunClock {
  std::optional<std::uint64_t> t0_ns;      // the earliest recorded host instant; none: no host times at all
  std::vector<ConditionClock> conditions;  // one per latency condition, in order
  std::optional<double> window_origin_s;   // the rig window's time 0, when the run has one and host times
};

RunClock run_clock(const Recording& recording);

// Where each of the DQ activity timeline's `windows` starts: the windows
// cover the analyzer's capture evenly, in order. Empty when the capture has
// no place on the clock (no window, or the analyzer was not in it).
std::vector<double> dq_window_starts(const Recording& recording, const RunClock& clock, std::size_t windows);

// The side each iteration of `c` ran for: "candidate" or "reference" in a run
// with a same-run reference, "" without one.
std::vector<const char*> iteration_sides(const LatencyCondition& c);

// The run's stored Recording (the raw truth the clock reads).
Result<Recording> stored_recording(const RunRecord& run);

}  // namespace harness
