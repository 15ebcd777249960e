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
#include "probes/vendor_figures.h"

namespace harness {

// Repeated measurements of one microbenchmark of the "bandwidth" and
// "compute" regression tables ("bandwidth.seq_read.1t", "bandwidth.random_4k",
// "bandwidth.burst_64B", "compute.fma_fp32.1t").
struct CeilingSamples {
  std::string name;
  std::string unit;    // "B/s" or "op/s"
  std::string source;  // "membw:seq_read avx2, 1 thread"
  std::vector<double> values;
  std::string unavailable;  // set when the probe could not measure it
};

struct KernelTiming {
  std::string name;
  std::vector<double> seconds;  // one per repetition, or per round of a pairing
  std::string unavailable;
  // With a same-run reference ([[roofline.kernels]] reference): its time in
  // each round, beside `seconds` of the same round; empty without one.
  std::vector<double> reference_seconds;
  // With a reference: each round's time of either side is the median of a
  // block of this many runs (harness/rig/measure_roofline.cc); 0 otherwise.
  int runs_per_round = 0;
};

// The per-layer profile file as it was read, so a replay analyses the same
// text without the file.
struct ProfileText {
  std::string path;  // as resolved when the run read it
  std::string text;
};

struct RooflineRecording {
  std::vector<CeilingSamples> ceilings;
  std::vector<KernelTiming> kernels;
  std::vector<VendorOutput> vendor;
  std::optional<ProfileText> profile;
  std::optional<ProfileText> profile_work;  // [roofline.profile] work: the second file's text
  // How the kernels with a reference alternated with it: "random order, seed
  // 1234" / "ABBA order"; empty when none did.
  std::string pairing;

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
// The weaker of two provenances (declared < model < replayed < measured):
// what a figure computed from both can claim.
Provenance weakest(Provenance a, Provenance b);

RooflinePlacement place_on_roofline(double flops, double bytes, double peak_compute,
                                    double bandwidth);

// `measured` is the provenance of figures taken on the rig (measured live,
// replayed from a recording).
// Runs after the other levels: a kernel whose bytes come from "counters:<name>"
// or "ddr" reads the metric counter.<name> / ddr.bytes those levels produced.
void analyse_roofline(const Scenario& scenario, const RooflineRecording* recording,
                      Provenance measured, Analysis& out);

// The verdict a baseline-relative expectation gets in a run alone.
inline constexpr const char* kNeedsBaseline = "needs a baseline: evaluated by harness compare";

// Baseline-relative expectations ("intensity_gain_min", "intensity_increased"):
// pure, for `harness compare` to call with the baseline's and the current
// run's analyses.
std::vector<Verdict> evaluate_roofline_baseline(const RooflineConfig& config, const Analysis& baseline,
                                                const Analysis& current);

}  // namespace harness
