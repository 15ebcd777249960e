// `cmake --install` of this build into a temporary prefix: the binary, the
// manual page, the completions, the scenarios with their counter groups and
// the documentation land in the usual places, and the installed binary finds
// its shipped groups there.
#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "probes/process.h"
#include "tests/support/scratch_dir.h"

namespace harness {
namespace {

namespace fs = std::filesystem;

TEST(Install, PutsEverythingInTheUsualPlacesAndTheBinaryFindsItsGroups) {
  const fs::path build = fs::path(HARNESS_BINARY).parent_path();
  if (!fs::exists(build / "harness.1")) GTEST_SKIP() << "the manual page was not built (target harness_docs)";
  if (!find_executable("cmake")) GTEST_SKIP() << "no cmake";
  const fs::path dir = testing_support::fresh_test_dir("harness-install");
  Result<CommandResult> installed =
      run_command({"cmake", "--install", build.string(), "--prefix", (dir / "prefix").string()}, {.timeout_s = 120});
  ASSERT_TRUE(installed);
  ASSERT_TRUE(installed->succeeded()) << installed->out << installed->err;
  const fs::path prefix = dir / "prefix";
  for (const char* file : {"bin/harness", "share/man/man1/harness.1", "share/bash-completion/completions/harness",
                           "share/zsh/vendor-completions/_harness", "share/fish/vendor_completions.d/harness.fish",
                           "share/harness/scenarios/host.toml", "share/harness/scenarios/groups/linux-host.toml",
                           "share/harness/scenarios/README.md", "share/doc/harness/README.md",
                           "share/doc/harness/architecture.md", "share/doc/harness/examples/lab/grafana-dashboard.json"})
    EXPECT_TRUE(fs::exists(prefix / file)) << file;
  // A scenario in a folder without groups/: the installed binary takes
  // "linux-host" from share/harness/scenarios/groups.
  std::ofstream(dir / "s.toml") << "[scenario]\nname = \"x\"\n[rig]\nname = \"r\"\n[workload]\nbuiltin = \"vector_add\"\n"
                                   "elements = 64\n[counters]\ngroups = [\"linux-host\"]\n";
  Result<CommandResult> check =
      run_command({(prefix / "bin/harness").string(), "check", "--no-rig", (dir / "s.toml").string()});
  ASSERT_TRUE(check);
  EXPECT_TRUE(check->succeeded()) << check->err;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace harness
