#include "harness/rig/counter_windows.h"

#include <algorithm>

#include "harness/levels/counters.h"
#include "harness/scenario/reference_config.h"

namespace harness {

std::int64_t WindowPlan::total() const {
  std::int64_t n = 0;
  for (std::int64_t l : length) n += l;
  return n;
}

WindowPlan plan_windows(const CountersConfig& cfg) {
  const std::optional<ReferenceConfig>& ref = cfg.paired_with;
  const std::uint64_t seed = ref ? ref->seed.value_or(0) : 0;
  WindowPlan plan;
  if (!ref) {
    for (std::int64_t k = 0; k < cfg.windows; ++k) {
      plan.reference.push_back(false);
      plan.length.push_back(window_end(cfg.iterations, cfg.windows, k) -
                            (k == 0 ? 0 : window_end(cfg.iterations, cfg.windows, k - 1)));
    }
    return plan;
  }
  const int rounds = static_cast<int>(std::min<std::int64_t>(ref->rounds, cfg.iterations));
  const std::int64_t per_window = (cfg.iterations + rounds - 1) / rounds;
  for (int round = 0; round < rounds; ++round) {
    const bool first = reference_first(*ref, seed, round);
    for (bool side : {first, !first}) {
      plan.reference.push_back(side);
      plan.length.push_back(per_window);
    }
  }
  return plan;
}

}  // namespace harness
