#include "harness/compare/baseline_expectations.h"

#include "harness/levels/accuracy.h"
#include "harness/levels/counters.h"
#include "harness/levels/ddr.h"
#include "harness/levels/latency.h"
#include "harness/levels/roofline.h"

namespace harness {

// Each level judges its own baseline-relative expectations ("AI moved right",
// "MEM_STALL dropped >= 50 %", ...); a failed one makes compare exit 1.
std::vector<Verdict> evaluate_baseline_expectations(const Scenario& scenario, const Analysis& baseline,
                                                    const Analysis& current) {
  std::vector<Verdict> out;
  auto append = [&](std::vector<Verdict> v) { out.insert(out.end(), v.begin(), v.end()); };
  if (scenario.roofline) append(evaluate_roofline_baseline(*scenario.roofline, baseline, current));
  if (scenario.counters) append(evaluate_counters_baseline(*scenario.counters, baseline, current));
  if (scenario.ddr) append(evaluate_ddr_baseline(*scenario.ddr, baseline, current));
  if (scenario.latency) append(evaluate_latency_baseline(*scenario.latency, baseline, current));
  if (scenario.accuracy) append(evaluate_accuracy_baseline(*scenario.accuracy, baseline, current));  // level 5
  return out;
}

}  // namespace harness
