// Level 1: roofline placement. Reference: scenarios/README.md "[roofline]".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/base/units.h"
#include "harness/scenario/expectation.h"
#include "harness/scenario/reference_config.h"
#include "probes/workload/workload_spec.h"

namespace harness {

// Where a kernel's bytes moved come from. The kind is stored as provenance.
struct BytesSource {
  enum class Kind { model, declared, counters, ddr };
  Kind kind = Kind::model;
  std::string metric;        // counters/ddr: the metric read from the analysis
  double per_count = 1;      // counters: bytes per counted event (line size)
  std::string written;       // as the scenario wrote it: "counters:mem_bytes"
};

struct RooflineKernel {
  std::string name;
  std::optional<BuiltinKernel> builtin;  // run for real on a host
  std::optional<double> flops;           // declared operations per run
  std::optional<double> bytes;           // declared bytes per run
  BytesSource bytes_source;
  std::optional<double> time;            // declared seconds per run (a rig kernel timed elsewhere)
  std::string precision = "fp32";        // which compute ceiling applies
  std::string memory = "dram";           // which memory ceiling applies
  // A built-in kernel's same-run reference ("reference": "same" for an A/A
  // night, or a table of a built-in kernel's keys): timed beside it once a
  // round of the scenario's [reference] rounds, in the round's drawn order.
  std::optional<BuiltinKernel> reference;
  std::string reference_where;           // file:line:col of the key
  std::string where;
};

// An expectation that compares this run with a baseline run; `harness
// compare` evaluates it (evaluate_roofline_baseline), a run alone cannot.
struct KernelBaselineExpectation {
  std::string kernel;
  std::string key;     // "intensity_gain_min", "intensity_increased"
  std::string metric;  // "<kernel>.intensity"
  double min_ratio = 1;  // current / baseline must reach it
  bool strictly_greater = false;  // "increased": current > baseline
  std::string where;
};

// One figure a vendor tool prints: the metric it fills ("bandwidth.dram",
// "compute.int8", "bandwidth.random_4k"), the regex whose one capture group
// is the number, and the unit the number is in.
struct VendorFigure {
  std::string metric;
  std::string pattern;
  std::string unit;
  Dimension dimension = Dimension::bandwidth;
  std::string where;
};

struct VendorTool {
  std::string name;
  std::vector<std::string> argv;
  double timeout_s = 60;
  std::vector<VendorFigure> figures;
};

// A per-layer profile imported for pre-analysis (seed 001, section 4).
struct LayerProfileConfig {
  std::string path;     // resolved against the scenario file's folder
  std::string written;  // as written in the scenario
  std::string format = "auto";       // a name of probes/profile's format table; "auto": by content
  std::optional<double> clock_hz;    // Vela: the accelerator clock its cycles count
  std::optional<int> runs;           // Chrome trace: inferences the trace covers
  // A second file whose layers' work (flops, bytes) is joined by layer name.
  std::string work_path, work_written, work_format = "auto";
  std::string precision = "fp32";  // compute ceiling the layers run at
  std::string memory = "dram";     // memory ceiling they stream from
  int top = 5;                     // how many layers the "top by time" list names
  double element_bytes = 4;        // bytes per element when bytes come from shapes
  std::string where;
};

struct RooflineConfig {
  int repetitions = 5;                     // microbenchmark repetitions
  std::int64_t buffer_bytes = 256 << 20;   // bandwidth probe working set
  bool host_benchmarks = true;             // measure this host's ceilings
  int threads = 0;                         // sequential-read/FMA sweep up to it; 0: all CPUs
  std::int64_t random_bytes = 64 << 20;    // bytes read per random-read measurement
  std::vector<std::int64_t> bursts = {64, 128, 256, 512, 1024, 2048};
  std::uint64_t fma_iterations = 1 << 22;  // per thread and repetition
  std::vector<RooflineKernel> kernels;
  std::vector<VendorTool> vendor;
  std::optional<LayerProfileConfig> profile;
  std::vector<Expectation> expectations;
  std::vector<KernelBaselineExpectation> baseline_expectations;
  // Not a [roofline] key: the scenario's [reference] with the run's seed,
  // set by the runner for the device (Device::measure_roofline): each kernel
  // with a reference is then timed with it once a round, for its rounds.
  std::optional<ReferenceConfig> paired_with;
};

// Whether a kernel is timed against its reference in this request.
inline bool is_paired(const RooflineConfig& c, const RooflineKernel& k) {
  return k.reference && c.paired_with && k.builtin && !k.time;
}

// How many times the device times a kernel (and, when paired, its
// reference): the pairing's rounds, else the repetitions.
inline int timed_rounds(const RooflineConfig& c, const RooflineKernel& k) {
  return is_paired(c, k) ? c.paired_with->rounds : c.repetitions;
}

}  // namespace harness
