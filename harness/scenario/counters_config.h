// Level 2: PMU stall counters. Reference: scenarios/README.md "[counters]".
// Counters come in groups, data files like LIKWID's performance groups
// (scenarios/groups/*.toml): the sources to read, the counters each source
// gives, and derived metrics as formulas over the counters.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/scenario/counters_formula.h"
#include "harness/scenario/expectation.h"
#include "harness/scenario/reference_config.h"
#include "probes/counters/counter_spec.h"

namespace harness {

// A metric derived from the group's counters: [metrics] name = "formula".
struct DerivedCounterMetric {
  std::string name;  // "mem_stall_ratio"; "bytes" feeds the roofline (level 1)
  Formula formula;
  std::string unit;  // "1" for ratios, "B" for bytes
  Better better = Better::lower;  // stall ratios and miss rates: lower is better
  std::string where;
};

struct CounterGroup {
  std::string name;
  std::string description;
  std::string path;  // the group file as loaded
  std::string sha256;  // of its text: a replay can tell when the group changed since the run
  std::vector<CounterSourceSpec> sources;
  std::vector<CounterSpec> counters;
  std::vector<DerivedCounterMetric> metrics;
};

// An expectation against the baseline run: [counters.expect.baseline].
struct BaselineCounterExpectation {
  enum class Kind {
    drop_min,  // "<NAME>_drop_min = 0.5": (baseline - current) / baseline >= 0.5
    rise_max,  // "<NAME>_rise_max = 0.1": (current - baseline) / baseline <= 0.1
    follows,   // "<NAME>_follows = \"LEAD\"": NAME must drop when LEAD drops
  };
  Kind kind = Kind::drop_min;
  std::string key;      // as written
  std::string counter;  // a counter or derived metric name
  std::string lead;     // follows: the counter it moves with
  double fraction = 0;  // drop_min, rise_max
  std::string where;
};

struct CountersConfig {
  std::vector<CounterGroup> groups;
  std::int64_t iterations = 1;  // workload iterations between the before and after readings
  // The iterations are read in this many consecutive windows of (nearly)
  // equal length: readings between them, each step checked (one wrap per
  // step), and each window's count a sample of the run (1..iterations;
  // read_each_iteration = true is windows = iterations).
  std::int64_t windows = 1;
  // Not a [counters] key: the scenario's [reference] with the run's seed,
  // set by the runner for the device (Device::measure_counters): the
  // iterations are then counted in rounds, one window of each side a round
  // (scenarios/README.md "[reference]"), and `windows` does not apply.
  std::optional<ReferenceConfig> paired_with;
  std::vector<Expectation> expectations;  // absolute: "mem_stall_ratio_max = 0.6"
  std::vector<BaselineCounterExpectation> baseline_expectations;

  const CounterSpec* find_counter(const std::string& name) const;
  // Every group's sources, each with its counters, in group order: what a
  // CounterSession opens.
  std::vector<CounterSessionSource> session_sources() const;
};

}  // namespace harness
