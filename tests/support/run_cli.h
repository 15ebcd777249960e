// `harness ARGS...` run inside the test's process (run_cli, harness/cli), for
// tests that need no child process: the exit code, with what it printed in
// out and err.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "harness/cli/commands.h"

namespace harness::testing_support {

inline int run_cli_in_process(std::vector<std::string> args, std::ostream& out, std::ostream& err) {
  args.insert(args.begin(), "harness");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  return run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
}

}  // namespace harness::testing_support
