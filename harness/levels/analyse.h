// Recording -> metrics -> verdicts. Pure: no I/O, no clock.
#pragma once

#include <vector>

#include "harness/levels/recording.h"
#include "harness/model/metric.h"
#include "harness/scenario/scenario.h"

namespace harness {

// `measured` is Provenance::measured for a live run, Provenance::replayed
// when the recording was loaded from disk.
Analysis analyse(const Scenario& scenario, const Recording& recording, Provenance measured);

// Checks expectations against the metrics; an expectation on a metric that is
// unavailable gives an "unavailable" verdict carrying the metric's reason.
std::vector<Verdict> evaluate_expectations(const std::vector<Expectation>& expectations,
                                           const Analysis& analysis);

// The run's status from its verdicts: failed if any failed, else passed.
RunStatus status_from_verdicts(const std::vector<Verdict>& verdicts);

}  // namespace harness
