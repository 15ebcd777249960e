#include <cstdlib>

#include "harness/cli/commands.h"
#include "harness/rig/agent.h"

namespace harness {

Action setup_agent(CLI::App& app, const GlobalOptions&, Io) {
  auto options = std::make_shared<AgentOptions>();
  app.add_option("--test-clock-offset", options->clock_offset_ns,
                 "Test only: nanoseconds added to the device clock the agent reports");
  app.add_option("--stability-root", options->stability_root,
                 "Where the stability readings find /sys and /proc (default /): a fake tree in tests");
  return [options]() -> Result<ExitCode> {
    int status = run_agent(*options);
    return static_cast<ExitCode>(status);
  };
}

}  // namespace harness
