// Workload runners: each yields one iteration's latency at a time, so the
// measuring loop (harness/runner/acquire_latency.cc) is the same for a
// kernel run in-process, a command started once per iteration, and a
// long-running command that reports its own iterations on stdout.
#pragma once

#include <cstdint>
#include <memory>
#include <stop_token>
#include <string>

#include "harness/base/result.h"
#include "probes/clock.h"
#include "probes/workload/workload_spec.h"

namespace harness {

struct IterationSample {
  double latency_s = 0;
  std::uint64_t end_ns = 0;  // when the iteration ended (or was reported), on the runner's clock
};

class WorkloadRunner {
 public:
  virtual ~WorkloadRunner() = default;
  // "builtin:gemm", "command:./infer", "stream:./serve"
  virtual const std::string& source() const = 0;
  // Starts what runs for the whole window (a long-running command).
  virtual Status start() { return ok(); }
  // One iteration, within `timeout_s`; an Error when the workload crashed,
  // hung or ended early (the message names how, and its last output).
  virtual Result<IterationSample> next(double timeout_s) = 0;
  // Stops what start() began.
  virtual void stop() {}
  // A stop request (SIGINT/SIGTERM) ends a wait for a streamed iteration early.
  void set_stop_token(std::stop_token stop) { stop_ = std::move(stop); }

 protected:
  std::stop_token stop_;
};

// The runner for a workload. `clock` must be safe to read from another
// thread for a streaming command (MonotonicClock is).
Result<std::unique_ptr<WorkloadRunner>> make_workload_runner(const Workload& workload, Clock& clock);

// Plan-time check: the workload's program exists.
Status check_workload_command(const Workload& workload);

}  // namespace harness
