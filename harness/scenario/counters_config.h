// Level 2: PMU stall counters. Reference: scenarios/README.md "[counters]".
// Counters come in groups, data files like LIKWID's performance groups
// (scenarios/groups/*.toml): the sources to read, the counters each source
// gives, and derived metrics as formulas over the counters.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/levels/counters_formula.h"
#include "harness/scenario/expectation.h"

namespace harness {

// One instance of a counter source kind (probes/counters/sources.h), as a
// group declares it: [sources.<name>].
struct CounterSourceSpec {
  std::string name;  // "perf", "npu_stats"
  std::string kind;  // "perf_event", "text_file", "command", "recorded"
  std::string path;  // text_file: a key/value file or a directory of one-number files; recorded: a JSON file
  std::vector<std::string> command;  // command: argv
  bool deltas = false;  // command: one run after the workload prints the deltas itself
  double timeout_s = 10;  // command: per run
  int width = 64;         // default counter width in bits (32, 48 or 64)
  std::string where;      // file:line:col of the declaration
};

// One counter: [counters.<NAME>] of a group.
struct CounterSpec {
  std::string name;    // "MEM_STALL_CYCLES": the name formulas and expectations use
  std::string source;  // a CounterSourceSpec name in the same group
  std::string event;   // perf_event: "task-clock", "LLC-load-misses", "4/0x3c", "msr/tsc"
  std::string key;     // text_file: the key in the file, or the file name in the directory
  std::string pattern; // command: a regular expression whose first group is the value
  double scale = 1;    // the delta is multiplied by it (e.g. 64 B per line)
  int width = 0;       // bits; 0: the source's width
  std::string unit;    // "cycles", "events", "ns", "B"
  std::string where;
};

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
  bool read_each_iteration = false;  // also read after every iteration: each step checked, one wrap per step
  std::vector<Expectation> expectations;  // absolute: "mem_stall_ratio_max = 0.6"
  std::vector<BaselineCounterExpectation> baseline_expectations;

  const CounterSpec* find_counter(const std::string& name) const;
};

}  // namespace harness
