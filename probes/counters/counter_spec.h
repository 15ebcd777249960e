// What a counter source is made with: the probes' own option structs, which
// a counter group (harness/scenario/counters_config.h) embeds as parsed from
// its [sources.<name>] and [counters.<NAME>] tables.
#pragma once

#include <string>
#include <vector>

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

// One source a counter session opens (probes/counters/session.h), with the
// counters read from it.
struct CounterSessionSource {
  std::string group;  // the counter group that declares it, named in errors
  CounterSourceSpec spec;
  std::vector<CounterSpec> counters;  // in the group's order
};

}  // namespace harness
