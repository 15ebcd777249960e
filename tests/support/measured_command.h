// Runs a command as the hostile-input tests need: its own peak memory (the
// child's ru_maxrss from wait4, not the test process's) and its wall time,
// killed (SIGKILL, process group) at a hang guard. Output goes to files in
// `scratch` and is read back.
#pragma once

#include <string>
#include <vector>

namespace harness::testing_support {

struct MeasuredRun {
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal ended it
  bool timed_out = false;
  double seconds = 0;
  long max_rss_kb = 0;
  std::string out, err;
};

MeasuredRun run_measured(const std::vector<std::string>& argv, const std::string& scratch, double timeout_s);

}  // namespace harness::testing_support
