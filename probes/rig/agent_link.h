// A child process spoken to in lines: its stdin takes requests, its stdout
// gives replies. The child is the transport's command (the agent itself, or
// ssh/adb/labgrid starting it on the device); it runs in its own process
// group so that killing the link kills whatever the transport forked.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/base/result.h"
#include "probes/process.h"

namespace harness {

class AgentLink {
 public:
  static Result<std::unique_ptr<AgentLink>> start(const std::vector<std::string>& argv, std::size_t max_line);
  ~AgentLink();  // closes stdin, then stops the child (SIGTERM, SIGKILL)
  AgentLink(const AgentLink&) = delete;
  AgentLink& operator=(const AgentLink&) = delete;

  // Writes one line (a newline is added). An error when the link is gone.
  Status send(const std::string& line);

  enum class Got { line, timeout, closed };
  // Waits at most timeout_s for one complete line. `closed`: the child's
  // stdout ended (ended() and stderr_tail() say how). An Error: a line over
  // the size limit.
  Result<Got> receive(double timeout_s, std::string& line);

  pid_t pid() const { return pid_; }
  // How the child ended, waiting at most `seconds` for it.
  std::optional<ChildEnd> wait_end(double seconds);
  // The last bytes it wrote to stderr (ssh's "Connection refused", a shell's
  // "command not found").
  std::string stderr_tail();
  // Closes its stdin, waits up to grace_s, then SIGTERM/SIGKILL its group.
  ChildEnd close(double grace_s = 2);

 private:
  AgentLink() = default;
  void drain_stderr();
  pid_t pid_ = -1;
  int in_fd_ = -1, out_fd_ = -1, err_fd_ = -1;
  std::size_t max_line_ = 0;
  std::string buffer_, err_tail_;
  std::optional<ChildEnd> end_;
};

}  // namespace harness
