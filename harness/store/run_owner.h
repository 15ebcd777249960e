// Which process runs a live run, recorded when the run begins, so that a run
// whose process died (SIGKILL, a crash, a reboot) is told apart from one that
// is still running: the run shows as "abandoned" once its owner is gone.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace harness {

struct RunOwner {
  std::int64_t pid = 0;     // 0: not recorded (a store written before schema 3)
  std::string pid_start;    // field 22 of /proc/<pid>/stat: tells a reused pid apart
  std::string boot_id;      // /proc/sys/kernel/random/boot_id
  std::string host;         // gethostname
};

// This process, as a RunOwner. `proc_root` is /proc except in tests.
RunOwner current_run_owner(const std::string& proc_root = "/proc");

// True when the owner is certainly gone: same host, and another boot, or no
// process with that pid and start time. False when it still runs, and also
// when that cannot be told here (another host, or nothing recorded).
bool run_owner_gone(const RunOwner& owner, const std::string& proc_root = "/proc");

}  // namespace harness
