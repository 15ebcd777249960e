// Level 4: end-to-end latency and power under load. Reference:
// scenarios/README.md "[latency] and [workload] — level 4".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/scenario/expectation.h"
#include "probes/power/power_source.h"  // PowerConfig

namespace harness {

// One background-load condition the workload is measured under.
struct LoadCondition {
  std::string name;               // "none", "stress-ng-cpu-1": metric prefix "load.<name>."
  std::vector<std::string> argv;  // empty for "none"; never run through a shell
  std::string where;              // file:line:col of the entry
};

struct LatencyConfig {
  std::int64_t iterations = 100;  // at least this many measured iterations
  std::int64_t warmup = 5;        // not counted
  double min_duration_s = 0;      // and at least this long
  double run_timeout_s = 600;     // the whole measured window of one condition
  double load_settle_s = 0.5;     // from starting a load to starting the warm-up
  double confidence = 0.95;       // of the intervals for p50 and p95
  std::vector<LoadCondition> loads = {{"none", {}, ""}};  // the first one gives the unprefixed metrics
  PowerConfig power;
  std::vector<Expectation> expectations;
  // Baseline-relative expectations (evaluate_latency_baseline).
  std::optional<Expectation> efficiency_gain_min;       // efficiency / baseline efficiency >= x
  std::optional<Expectation> power_not_above_baseline;  // power_mean <= baseline power_mean
};

}  // namespace harness
