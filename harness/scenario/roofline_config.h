// Level 1: roofline placement. Reference: scenarios/README.md "[roofline]".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/scenario/expectation.h"
#include "harness/scenario/workload.h"

namespace harness {

struct RooflineKernel {
  std::string name;
  std::optional<BuiltinKernel> builtin;  // run for real on a host
  std::optional<double> flops;           // declared operations per run
  std::optional<double> bytes;           // declared bytes per run
  std::string bytes_source = "model";    // "model", "declared", ...
  std::string precision = "fp32";        // which compute ceiling applies
  std::string memory = "dram";           // which memory ceiling applies
  std::string where;
};

struct RooflineConfig {
  int repetitions = 5;                     // microbenchmark repetitions
  std::int64_t buffer_bytes = 256 << 20;   // bandwidth probe working set
  std::vector<RooflineKernel> kernels;
  std::vector<Expectation> expectations;
};

}  // namespace harness
