// `harness agent`: the device side of a rig. It reads requests from stdin
// and answers on stdout (protocol.h), doing the work with a LocalDevice.
// Whatever ends it (the host's "bye", the end of stdin when the link drops,
// SIGTERM, SIGINT or SIGHUP), it cancels the op in progress and stops every
// background load it started before it exits. The heartbeat period the host
// asks for is clamped to 50 ms .. 60 s; a host that stops reading does not
// keep it from ending.
#pragma once

#include <cstdint>
#include <string>

namespace harness {

struct AgentOptions {
  int in_fd = 0;
  int out_fd = 1;
  double heartbeat_s = 1;  // until hello sets it
  // Test only: added to the device's monotonic clock, so that a test can
  // check the host maps device times back through the clock sync.
  std::int64_t clock_offset_ns = 0;
  // Where the stability readings find /sys and /proc: "/" on a device, a
  // fake tree in tests.
  std::string stability_root = "/";
};

// Serves until the link ends; returns the process exit status.
int run_agent(const AgentOptions& options);

}  // namespace harness
