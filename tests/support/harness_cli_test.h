// A fixture for tests of the built executable on a store of their own: each
// test gets a fresh folder (dir_, see ScratchDirTest), and harness(args) runs
// `harness --db <dir_>/runs.sqlite args...`.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "probes/process.h"
#include "tests/support/run_harness.h"
#include "tests/support/scratch_dir.h"

namespace harness::testing_support {

class HarnessCliTest : public ScratchDirTest {
 protected:
  explicit HarnessCliTest(CommandOptions options = kHarnessCommand) : options_(std::move(options)) {}

  CommandResult harness(std::vector<std::string> args) const {
    args.insert(args.begin(), {"--db", db()});
    return run_harness(args, options_);
  }
  std::string db() const { return path("runs.sqlite"); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

 private:
  CommandOptions options_;
};

}  // namespace harness::testing_support
