// A scenario file parsed once into typed structs: what the rig has (Rig),
// what runs on it (Workload) and, per verification level, how to measure it
// and what to expect. Reference: scenarios/README.md.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "harness/base/result.h"
#include "harness/scenario/accuracy_config.h"
#include "harness/scenario/compare_config.h"
#include "harness/scenario/counters_config.h"
#include "harness/scenario/ddr_config.h"
#include "harness/scenario/latency_config.h"
#include "harness/scenario/reference_config.h"
#include "harness/scenario/roofline_config.h"
#include "harness/scenario/stability_config.h"
#include "probes/device_context.h"
#include "probes/rig/transport.h"
#include "probes/workload/workload_spec.h"

namespace harness {

// A ceiling of the roofline: declared in the scenario or measured on the rig.
struct Ceiling {
  std::string name;      // "fp32", "int8" (compute); "dram", "l2" (memory)
  bool measure = false;  // true: measured by a microbenchmark or vendor tool
  double value = 0;      // SI (op/s or B/s) when declared
  std::string where;     // file:line:col of the declaration
};

// Which workload window the host-side instruments (the analyzer capture of
// [ddr.acquire]) cover: level 4's measured window under one load condition,
// level 2's counted iterations, or none (the capture is taken on its own).
struct MeasurementWindow {
  std::string level = "latency";  // "latency", "counters", "none"
  std::string condition;          // latency: a load condition's name; empty: the first
  std::string where;
};

struct Rig {
  std::string name;
  std::string description;
  std::vector<Ceiling> compute;  // peak compute per precision
  std::vector<Ceiling> memory;   // memory bandwidth ceilings
  std::vector<VersionCommand> versions;  // run on the device by the agent
  // How the host reaches the device's agent ([rig] transport and its keys).
  TransportOptions transport;
  double heartbeat_timeout_s = 10;  // agent silence that is a fault
  double connect_timeout_s = 30;    // transport start to the agent's hello
  double clock_tolerance_s = 1e-3;  // allowed offset change between the syncs around a run, beyond uncertainties
  MeasurementWindow window;
  StabilityConfig stability;  // [rig.stability]
};

struct Scenario {
  std::string path;         // as given on the command line
  std::string text;         // the file's bytes, stored with every run
  std::string name;
  std::string description;
  Rig rig;
  Workload workload;
  std::optional<ReferenceConfig> reference;  // the same-run reference the workload is measured against
  std::optional<RooflineConfig> roofline;  // level 1
  std::optional<CountersConfig> counters;  // level 2
  std::optional<DdrConfig> ddr;            // level 3
  std::optional<LatencyConfig> latency;    // level 4
  std::optional<AccuracyConfig> accuracy;  // level 5
  std::optional<CompareConfig> compare;    // how `harness compare` judges runs
};

// A scenario read from a recording bundle takes its files from the bundle:
// a counter group named by path must be one of `files` (the manifest's,
// relative to `dir`); a bare name is `groups/<name>.toml` of the bundle
// when listed, else the group shipped with harness.
struct BundleScope {
  std::string dir;
  std::set<std::string> files;
};

// Parses scenario text (at most kMaxScenarioBytes); `path` is used in error
// messages, and to find counter groups beside it unless `bundle` is given.
Result<Scenario> parse_scenario(std::string text, std::string path, const BundleScope* bundle = nullptr);
// Reads and parses a regular file of at most kMaxScenarioBytes
// (input_limits.h); a missing file names the OS error.
Result<Scenario> load_scenario(const std::string& path);
// The scenario's text with its [reference] replaced by its [workload] (how
// the sides alternate kept): an A/A night, what `harness calibrate` runs.
// The text unchanged when it has no [reference].
Result<std::string> aa_scenario_text(const std::string& text, const std::string& path);

}  // namespace harness
