// Scenario expectations that refer to the baseline ("MEM_STALL drop >= 50 %
// against the baseline", "efficiency >= 2.1x baseline"). Each level owns the
// meaning of its own expectations; compare only collects the verdicts here.
#pragma once

#include <vector>

#include "harness/model/metric.h"
#include "harness/scenario/scenario.h"

namespace harness {

std::vector<Verdict> evaluate_baseline_expectations(const Scenario& scenario, const Analysis& baseline,
                                                    const Analysis& current);

}  // namespace harness
