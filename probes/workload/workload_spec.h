// What runs on the rig while the levels measure: the workload probes' own
// option structs, embedded as is in the scenario ([workload]).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace harness {

// A kernel the harness runs in-process on a host (probes/kernels.h).
struct BuiltinKernel {
  std::string kind;           // "vector_add", "gemm", "softmax", "conv2d"
  std::string precision = "fp32";
  std::int64_t elements = 0;  // vector_add
  std::int64_t m = 0, n = 0, k = 0;  // gemm: C[m,n] += A[m,k] * B[k,n]
  std::int64_t rows = 0, cols = 0;   // softmax over each row
  // conv2d, NCHW input, KCRS filter, stride 1, no padding
  std::int64_t batch = 0, channels = 0, height = 0, width = 0, filters = 0, kernel_h = 0, kernel_w = 0;
  // Repeats the work this many times per iteration: a way to inject a
  // known slowdown (e.g. 1.2) when testing regression detection.
  double slowdown = 1.0;
};

// How a long-running command reports each iteration's latency on stdout:
// a regular expression with one capture group, or JSON lines with a field.
struct LatencyReport {
  std::string pattern;     // e.g. "took ([0-9.]+) ms"
  std::string json_field;  // e.g. "latency_ms"
  double unit_s = 1;       // seconds per reported unit ("ms" -> 1e-3)
  bool active() const { return !pattern.empty() || !json_field.empty(); }
};

struct Workload {
  enum class Kind { builtin, command };
  Kind kind = Kind::builtin;
  std::string name;                  // shown in reports
  BuiltinKernel builtin;             // kind == builtin
  std::vector<std::string> command;  // kind == command: argv, never a shell string
  // kind == command: when active, the command runs once and reports its
  // iterations on stdout; otherwise it is started once per iteration.
  LatencyReport report;
  double timeout_s = 60;             // per iteration
  double tokens_per_iteration = 0;   // declared; 0: throughput in iterations/s only
  // The CPUs the workload runs on (probes/workload/cpu_pinning.h); empty:
  // wherever the device's scheduler puts it. first_cpu (cpus = "first"): the
  // lowest-numbered CPU the device lets it use, whichever that is there.
  std::vector<int> cpus;
  bool first_cpu = false;
};

}  // namespace harness
