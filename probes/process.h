// Child processes: argv arrays only, never a shell string built from
// scenario text; bounded output; a timeout that kills.
#pragma once

#include <string>
#include <vector>

#include "harness/base/result.h"

namespace harness {

struct CommandResult {
  int exit_code = -1;     // when it exited normally
  int signal = 0;         // when a signal ended it
  bool timed_out = false;
  std::string out;        // stdout, cut at the output limit
  std::string err;        // stderr, cut at the output limit
  double seconds = 0;     // wall time from start to exit

  bool succeeded() const { return !timed_out && signal == 0 && exit_code == 0; }
  // "exit status 3", "killed by signal 9 (Killed)", "timed out after 2 s"
  std::string describe_end() const;
};

struct CommandOptions {
  double timeout_s = 60;
  std::size_t max_output = 1 << 20;  // per stream
};

// Runs argv[0] (looked up in PATH when it has no '/'). An executable that
// cannot be found or started is an error; a non-zero exit is not (check
// succeeded()).
Result<CommandResult> run_command(const std::vector<std::string>& argv,
                                  const CommandOptions& options = {});

// The full path of an executable, or an error naming the command.
Result<std::string> find_executable(const std::string& name);

}  // namespace harness
