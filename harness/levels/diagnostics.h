// Diagnostics for people, from the seed's rules (seed 000, level 2): when
// levels 1-3 pass but level 4 efficiency does not improve, look at the
// ALU-stall counters: a rise points at CPU-side overhead or cache pollution.
// ALU-stall counters are the level-2 counters and derived metrics whose
// name contains "ALU_STALL" (any case).
#pragma once

#include <string>
#include <vector>

#include "harness/model/metric.h"
#include "harness/scenario/scenario.h"

namespace harness {

// Called once by analyse() after the verdicts: names level-2 checks after
// their section ("counters.expect.x_max"), adds the level-2 baseline
// expectations as "unavailable: needs a baseline" verdicts, and the seed's
// rule as a hint when level 4's efficiency verdict failed while levels 1-3
// passed (without a baseline it can show the ALU-stall counters, not
// whether they rose).
void add_counters_verdicts_and_hints(const Scenario& scenario, Analysis& analysis);

// The seed's rule against a baseline run (for compare): when levels 1-3 pass
// in `current` and its efficiency is not above the baseline's, one hint
// saying whether the ALU-stall counters rose. Empty when the rule does not
// apply. Pure.
std::vector<std::string> diagnose_efficiency_against_baseline(const Analysis& baseline, const Analysis& current);

}  // namespace harness
