// Starting a command once per iteration with as little of the harness's own
// cost inside the timed span as possible. Pumping two pipes until their end
// (as probes/process.h does; through Boost.Process it cost ~200 us per start
// on the development machine: 4 % of a 5 ms command, against a goal of 1 %,
// scripts/bench-latency-overhead) is kept out of the span: here a memfd
// takes the output and a pidfd waits with a timeout.
#pragma once

#include <cstdint>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "harness/base/result.h"
#include "probes/clock.h"
#include "probes/process.h"

namespace harness {

struct TimedRun {
  std::uint64_t start_ns = 0, end_ns = 0;  // on the given clock: spawn to reap
  bool timed_out = false;                  // killed (with its process group) at the timeout
  bool stopped = false;                    // ended by a stop request (SIGTERM, then SIGKILL)
  ChildEnd end;
  std::string output_tail;  // last bytes of stdout and stderr, only kept when it failed
};

class TimedSpawner {
 public:
  // argv[0] must be a path (resolve it once with find_executable).
  static Result<std::unique_ptr<TimedSpawner>> create(std::vector<std::string> argv);
  ~TimedSpawner();
  TimedSpawner(const TimedSpawner&) = delete;
  TimedSpawner& operator=(const TimedSpawner&) = delete;

  // A stop request ends the iteration at once: the child's process group
  // gets SIGTERM, then SIGKILL after kStopGrace_s.
  Result<TimedRun> run(Clock& clock, double timeout_s, std::size_t tail_bytes = 400, std::stop_token stop = {});

  static constexpr double kStopGrace_s = 2.0;

 private:
  TimedSpawner() = default;
  std::vector<std::string> argv_;
  std::vector<char*> argv_ptrs_;
  int output_fd_ = -1;  // memfd holding the current iteration's stdout and stderr
};

}  // namespace harness
