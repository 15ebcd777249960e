#include "harness/compare/baseline_expectations.h"

namespace harness {

std::vector<Verdict> evaluate_baseline_expectations(const Scenario&, const Analysis&, const Analysis&) {
  // TODO(merge): append the verdicts of the levels' pure functions, in level
  // order, once they exist on this branch:
  //   evaluate_roofline_baseline  (harness/levels/roofline.h)
  //   evaluate_counters_baseline  (harness/levels/counters.h)
  //   evaluate_ddr_baseline       (harness/levels/ddr.h)
  //   evaluate_latency_baseline   (harness/levels/latency.h)
  // Each takes (scenario, baseline, current) and returns std::vector<Verdict>;
  // a failed one makes `harness compare` exit 1.
  return {};
}

}  // namespace harness
