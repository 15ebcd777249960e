// A run's measurement window as Chrome trace event JSON (`harness export RUN
// --trace FILE`), for the viewers engineers already use (Perfetto,
// chrome://tracing): each load condition's iterations as slices on a track
// of their own, the background load and the level windows as slices, power,
// counter readings and DQ bus activity as counter tracks, all on the host's
// monotonic clock (microseconds from the earliest recorded instant).
// Reference: docs/parts/roofline.md "Our timeline in theirs".
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/levels/recording.h"
#include "harness/model/run.h"

namespace harness {

// The track of a condition's iterations. A recording whose iterations have
// sides (a candidate and a reference workload alternating in rounds) gives
// each side its own track: the same condition, the side named.
std::string iteration_track_name(const std::string& condition, const std::string& side = "");

struct RunTrace {
  nlohmann::json doc;               // {"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {...}}
  std::size_t iteration_slices = 0; // one per measured iteration
  std::vector<std::string> notes;   // what could not be placed on the host's clock, and why
};

RunTrace run_trace(const RunRecord& run, const Recording& recording);

}  // namespace harness
