#include "harness/compare/baseline_expectations.h"

#include "harness/levels/level_table.h"

namespace harness {

// Each level judges its own baseline-relative expectations ("AI moved right",
// "MEM_STALL dropped >= 50 %", ...); a failed one makes compare exit 1.
std::vector<Verdict> evaluate_baseline_expectations(const Scenario& scenario, const Analysis& baseline,
                                                    const Analysis& current) {
  std::vector<Verdict> out;
  for (const LevelRow* level : levels_in_report_order()) {
    std::vector<Verdict> v = level->baseline(scenario, baseline, current);
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

}  // namespace harness
