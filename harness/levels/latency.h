// Level 4: end-to-end latency (and, where a source exists, power) of the
// workload run many times.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "harness/model/metric.h"
#include "harness/scenario/scenario.h"

namespace harness {

struct LatencyRecording {
  std::string source;             // "builtin:gemm", "command:./infer"
  std::vector<double> start_s;    // iteration start, seconds from the window start
  std::vector<double> latency_s;  // iteration latency
  double window_s = 0;            // measured window, warm-up excluded
  std::string unavailable;        // why nothing was measured
  std::string power_unavailable = "no power source configured";
};

void to_json(nlohmann::json& j, const LatencyRecording& r);
void from_json(const nlohmann::json& j, LatencyRecording& r);

void analyse_latency(const Scenario& scenario, const LatencyRecording* recording,
                     Provenance measured, Analysis& out);

}  // namespace harness
