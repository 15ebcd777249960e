// Level 4: end-to-end latency and power under load. Reference:
// scenarios/README.md "[latency]".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/scenario/expectation.h"

namespace harness {

struct LatencyConfig {
  std::int64_t iterations = 100;  // at least this many measured iterations
  std::int64_t warmup = 5;        // not counted
  double min_duration_s = 0;      // and at least this long
  double run_timeout_s = 600;     // the whole measured window
  std::vector<Expectation> expectations;
};

}  // namespace harness
