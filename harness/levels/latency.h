// Level 4: end-to-end latency, throughput and (where a source exists) power
// of the workload run many times, under each background-load condition of
// the scenario. Metric names: the first condition's are plain
// ("latency_p95"); every further condition's carry "load.<name>."
// ("load.stress-ng-cpu-1.latency_p95"). Reference: scenarios/README.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "harness/model/metric.h"
#include "harness/scenario/scenario.h"

namespace harness {

// Raw power readings over one measured window (probes/power/).
struct PowerSeries {
  std::string source;       // "rapl:/sys/class/powercap (intel-rapl:0)"
  std::string quantity;     // "power" (W) or "energy" (cumulative J)
  std::vector<double> t_s;  // from the window's start
  std::vector<double> value;
  std::string unavailable = "no power source configured";
};

// A run with a same-run reference ([reference]): in each round one block of
// the candidate's iterations and one of the reference's, in the round's
// drawn order, all inside the condition's one window. A block covers
// iterations [first, first + count) of its condition, whose start_s and
// latency_s hold both sides in the order they ran.
struct PairedBlock {
  int round = 0;
  bool reference = false;
  std::size_t first = 0, count = 0;
};

// The workload measured under one load condition.
struct LatencyCondition {
  std::string name = "none";      // "none", "stress-ng-cpu-1"
  std::vector<std::string> load;  // argv of the background load; empty: none
  std::string load_end;           // how the load ended when stopped ("killed by signal 15 ...")
  std::string load_output;        // its last output
  std::vector<double> start_s;    // iteration start, seconds from the window start
  std::vector<double> latency_s;  // iteration latency
  double window_s = 0;            // measured window, warm-up excluded
  // The host's monotonic clock (ns) at the window start, where start_s
  // counts from: puts the conditions on one timeline (harness export
  // --trace). Absent in recordings made before it was kept.
  std::optional<std::uint64_t> origin_host_ns;
  PowerSeries power;
  std::vector<PairedBlock> blocks;  // empty: no reference, every iteration is the candidate's
};

struct LatencyRecording {
  std::string source;             // "builtin:gemm", "command:./infer", "stream:./serve"
  std::vector<LatencyCondition> conditions;
  std::string unavailable;        // why nothing was measured
  std::string reference_source;   // the same-run reference's, "" without one
  std::string pairing;            // how the sides alternated: "random order, seed 1234", "abba"
};

void to_json(nlohmann::json& j, const LatencyRecording& r);
void from_json(const nlohmann::json& j, LatencyRecording& r);

void analyse_latency(const Scenario& scenario, const LatencyRecording* recording,
                     Provenance measured, Analysis& out);

// The metric prefix of a condition: "" for the first, "load.<name>." after.
std::string latency_condition_prefix(const LatencyConfig& config, std::size_t index);

// The iterations of one side of a condition with blocks, in the order they
// ran (every iteration when it has none and `reference` is false).
std::vector<double> side_latencies(const LatencyCondition& c, bool reference);

// Baseline-relative expectations (efficiency_gain_min,
// power_not_above_baseline) of the first condition, for compare. Pure.
std::vector<Verdict> evaluate_latency_baseline(const LatencyConfig& config, const Analysis& baseline,
                                               const Analysis& current);

}  // namespace harness
