// Background load (stress-ng or any command) kept running around a measured
// window: started before it, checked alive at its end, then stopped with
// SIGTERM and, after a grace period, SIGKILL to its whole process group.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "harness/base/result.h"
#include "probes/process.h"

namespace harness {

// What is kept of a load once it stopped.
struct LoadOutcome {
  std::string command;  // as run, words joined by blanks
  ChildEnd end;         // how it ended when stopped (normally SIGTERM)
  std::string output;   // the last bytes of its stdout and stderr
};

class BackgroundLoad {
 public:
  static Result<std::unique_ptr<BackgroundLoad>> start(const std::vector<std::string>& argv);

  int pid() const { return child_->pid(); }
  // An error naming how it ended and its last output if it is not running.
  Status check_alive();
  // Stops it (whole process group); safe to call once.
  LoadOutcome stop(double grace_s = 2);

 private:
  BackgroundLoad(std::string command, std::unique_ptr<ChildProcess> child)
      : command_(std::move(command)), child_(std::move(child)) {}
  std::string command_;
  std::unique_ptr<ChildProcess> child_;
};

// Plan-time check: the load's program exists, so that a missing stress-ng is
// reported before anything runs rather than in the middle of a run.
Status check_load_command(const std::vector<std::string>& argv);

}  // namespace harness
