// A stored run's judgement (stored_comparison.h: the one compare, history
// --changes and publish show) in one of its four outcomes, with why: what
// `[notify]` and `export --openmetrics` carry, so a night that cannot be
// told is said to be so, never passed off as unchanged or as a regression.
//   regressed    the judgement regressed (an unacknowledged regression
//                against the nights or the same-run reference, or a failed
//                baseline expectation: compare's exit 1);
//   cannot tell  else, a metric the evidence could not decide;
//   improved     else, a metric improved;
//   unchanged    else.
// A metric unavailable in both runs (the rig has no source for it) or
// listed in [compare] ignore tells nothing either way and is left out.
#pragma once

#include <string>
#include <vector>

#include "harness/compare/stored_comparison.h"

namespace harness {

struct Outcome {
  Change outcome = Change::cannot_tell;  // regressed, improved, unchanged or cannot_tell
  // "2 metrics regressed: latency_p95 +12.3 %, throughput -8.1 %";
  // "1 metric cannot tell: power_mean (unavailable in the new run: ...)".
  std::string why;
  std::vector<const MetricComparison*> metrics;  // the rows behind it (into the report)
};

// Whether a row says anything about the night (see above).
bool tells_about_the_night(const MetricComparison& m);

Outcome outcome_of(const CompareReport& report);

}  // namespace harness
