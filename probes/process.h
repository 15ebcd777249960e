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
  std::string stdin_path = "";        // the file the command reads; empty: /dev/null
};

// Runs argv[0] (looked up in PATH when it has no '/'). An executable that
// cannot be found or started is an error; a non-zero exit is not (check
// succeeded()).
Result<CommandResult> run_command(const std::vector<std::string>& argv,
                                  const CommandOptions& options = {});

// The full path of an executable, or an error naming the command.
Result<std::string> find_executable(const std::string& name);

}  // namespace harness

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>

namespace harness {

// How a child process ended.
struct ChildEnd {
  int exit_code = -1;  // when it exited normally
  int signal = 0;      // when a signal ended it
  // "exit status 3", "killed by signal 11 (Segmentation fault)"
  std::string describe() const;
};

// A child that runs alongside the harness (a background load, a workload
// reporting its own iterations, a power meter). It gets its own process
// group so that stopping it also stops whatever it forked; its stdout and
// stderr are read on a thread of its own, the last bytes kept for messages.
class ChildProcess {
 public:
  // Called on the reader thread for every complete stdout line.
  using LineHandler = std::function<void(std::string_view line)>;

  // argv[0] is looked up in PATH when it has no '/'.
  static Result<std::unique_ptr<ChildProcess>> start(const std::vector<std::string>& argv,
                                                     LineHandler on_stdout_line = {},
                                                     std::size_t tail_bytes = 2048);
  ~ChildProcess();  // stops it (see stop) if it still runs
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  int pid() const;  // also its process group id
  // How it ended, or nothing while it runs.
  std::optional<ChildEnd> ended();
  // Waits until it ends, at most `seconds`.
  std::optional<ChildEnd> wait_for(double seconds);
  // SIGTERM to its process group, SIGKILL after `grace_s` to whatever of the
  // group is left; returns how the child itself ended.
  ChildEnd stop(double grace_s = 2);
  // The last `tail_bytes` of stdout and stderr, in the order they arrived.
  std::string output_tail() const;
  // True once both output streams reached their end.
  bool output_closed() const;
  // Waits (at most `seconds`) for the reader to see the end of both streams,
  // so that output_tail() holds everything a child that ended wrote.
  bool wait_output_closed(double seconds) const;

  struct State;  // the pid, the pipes and the reader thread, kept out of this header

 private:
  explicit ChildProcess(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace harness
