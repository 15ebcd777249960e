// harness-agent: the device side of a rig as an executable of its own,
// statically linked, with only the agent's code (cmake/agent.cmake), for a
// board that has none of the host's libraries. The same agent as
// `harness agent`, with the same options.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "harness/rig/agent.h"
#include "harness/rig/protocol.h"

namespace {

constexpr const char* kUsage =
    "usage: harness-agent [--version] [--test-clock-offset NS]\n"
    "Serves the harness agent protocol on stdin/stdout (the host starts it through the rig's transport).\n";

}  // namespace

int main(int argc, char** argv) {
  harness::AgentOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--version") {
      std::printf("harness-agent %s (protocol %d)\n", HARNESS_VERSION, harness::protocol::kVersion);
      return 0;
    }
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (arg == "--test-clock-offset" && i + 1 < argc) {
      char* end = nullptr;
      errno = 0;
      options.clock_offset_ns = std::strtoll(argv[++i], &end, 10);
      if (errno == 0 && end != argv[i] && *end == '\0') continue;
      std::fprintf(stderr, "harness-agent: --test-clock-offset: not an integer: '%s'\n", argv[i]);
      return 2;
    }
    std::fprintf(stderr, "harness-agent: unknown argument '%s'\n%s", arg.c_str(), kUsage);
    return 2;
  }
  return harness::run_agent(options);
}
