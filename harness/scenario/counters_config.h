// Level 2: PMU stall counters. Reference: scenarios/README.md "[counters]".
#pragma once

#include <string>
#include <vector>

#include "harness/scenario/expectation.h"

namespace harness {

struct CountersConfig {
  std::vector<std::string> perf_events;  // perf_event names read around the workload
  std::vector<Expectation> expectations;
};

}  // namespace harness
