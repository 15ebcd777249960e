// The workload's iterations marked on the charts of the instruments that
// watched it, so that a reader sees the analyzer and the power meter saw the
// workload: the DQ activity timeline (level 3) and each load condition's
// power trace (level 4). Placed on the run's one clock (run_clock.h), as
// `export --trace` places them; with a same-run reference the candidate's
// and the reference's iterations lie in lanes of their own, each labelled.
// Where they cannot be placed the chart has no marks and one sentence says
// why.
#pragma once

#include <string>
#include <vector>

#include "harness/base/result.h"
#include "harness/levels/recording.h"
#include "reports/svg.h"

namespace harness {

// Gives the DQ activity line (spec.ys and spec.baseline set, one value per
// timeline window) a time axis from the capture's first sample when the
// capture lies on the host's clock, and marks the iterations that ran during
// it. Returns "" when they are marked, else the sentence saying why not.
std::string mark_dq_timeline(const Result<Recording>& recording, svg::LineSpec& spec);

struct PowerChart {
  svg::LineSpec spec;
  std::string no_marks;  // why its iterations are not marked; empty when they are
};

// One chart per load condition with power readings: power over the
// measured window (an energy counter's by the difference between readings),
// on time from the condition's first measured iteration, its iterations
// marked.
std::vector<PowerChart> power_charts(const Recording& recording);

}  // namespace harness
