// The harness executable of this build (HARNESS_BINARY) run by a test: a
// harness that cannot be started fails the test and gives an empty result.
#pragma once

#include <unistd.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "probes/process.h"

namespace harness::testing_support {

// Most tests give a command two minutes and keep 4 MiB of each stream.
inline const CommandOptions kHarnessCommand{.timeout_s = 120, .max_output = 1 << 22};

inline CommandResult run_harness(const std::vector<std::string>& args, const CommandOptions& options = kHarnessCommand) {
  std::vector<std::string> argv{HARNESS_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  Result<CommandResult> r = run_command(argv, options);
  EXPECT_TRUE(r) << r.error().message;
  return r ? *r : CommandResult{};
}

// In a forked child: becomes the harness with `args` (exit 127 if it cannot).
[[noreturn]] inline void exec_harness(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(HARNESS_BINARY));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ::execv(HARNESS_BINARY, argv.data());
  ::_exit(127);
}

}  // namespace harness::testing_support
