// Level 1: roofline placement. The recording holds raw microbenchmark and
// kernel timings; the analysis turns them into ceilings and placements.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "harness/model/metric.h"
#include "harness/scenario/scenario.h"

namespace harness {

// Repeated measurements of one ceiling ("memory.dram", "compute.fp32").
struct CeilingSamples {
  std::string name;
  std::string unit;    // "B/s" or "op/s"
  std::string source;  // "membw:seq_read"
  std::vector<double> values;
  std::string unavailable;  // set when the probe could not measure it
};

struct KernelTiming {
  std::string name;
  std::vector<double> seconds;  // one per repetition
  std::string unavailable;
};

struct RooflineRecording {
  std::vector<CeilingSamples> ceilings;
  std::vector<KernelTiming> kernels;

  const CeilingSamples* find_ceiling(const std::string& name) const;
  const KernelTiming* find_kernel(const std::string& name) const;
};

void to_json(nlohmann::json& j, const RooflineRecording& r);
void from_json(const nlohmann::json& j, RooflineRecording& r);

// What one kernel's roofline placement is, from its numbers alone.
struct RooflinePlacement {
  double intensity = 0;   // op/B
  double attainable = 0;  // op/s = min(P, B * AI)
  double ridge = 0;       // op/B = P / B
  bool memory_bound = false;
  double ridge_distance_decades = 0;  // log10(AI / ridge): < 0 left of the ridge
};
RooflinePlacement place_on_roofline(double flops, double bytes, double peak_compute,
                                    double bandwidth);

// `measured` is the provenance of figures taken on the rig (measured live,
// replayed from a recording).
void analyse_roofline(const Scenario& scenario, const RooflineRecording* recording,
                      Provenance measured, Analysis& out);

}  // namespace harness
