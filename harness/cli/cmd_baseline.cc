// Not implemented yet: says so and exits 2, so no script mistakes it for a result.
#include "harness/cli/commands.h"

namespace harness {

Action setup_baseline(CLI::App& app, const GlobalOptions&, Io) {
  app.allow_extras();
  return []() -> Result<ExitCode> {
    return Error::input("'harness baseline' is not implemented in this build yet");
  };
}

}  // namespace harness
