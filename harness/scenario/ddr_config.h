// Level 3: DDR command-bus decoding. Reference: scenarios/README.md "[ddr]".
#pragma once

#include <string>
#include <vector>

#include "harness/scenario/expectation.h"

namespace harness {

struct DdrConfig {
  std::string standard;  // "ddr4", "lpddr4", "lpddr5"
  std::string capture;   // a capture file to import, relative to the scenario
  std::vector<Expectation> expectations;
};

}  // namespace harness
