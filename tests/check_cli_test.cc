// `harness check`, `harness run --dry-run` and the pre-flight of `harness run`:
// every problem of a scenario at once, with file:line:col, exit 2, nothing
// run or stored.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "probes/process.h"
#include "tests/support/file_bytes.h"
#include "tests/support/harness_cli_test.h"
#include "tests/support/host_scenario.h"
#include "tests/support/loopback_port.h"

namespace harness {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

// A loopback port nothing listens on: bound by us, then closed.
int closed_port() {
  int port = 0;
  ::close(testing_support::bind_loopback(port));
  return port;
}

using testing_support::file_bytes;

// Line and column numbers matter: the test asserts them.
std::string fmt_scenario(int port, const std::string& job) {
  return R"([scenario]
name = "five"
description = "five independent problems"
[workload]
builtin = "vector_add"
elements = 1024
# the board is off: nothing listens on this port
[rig]
name = "board-7"
transport = "ssh"
host = "127.0.0.1"
port = )" + std::to_string(port) + R"(
ssh_options = ["-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null"]
[counters]
groups = ["linux-hots"]
[latency]
iterations = 10
# a job file that was never written
load = ["stress-ng --job )" + job + R"( --cpu 1"]
[ddr]
standard = "lpddr4"
capture = "missing.sr"
[compare]
alpha = 0.05
defualt_threshold = 0.2
)";
}

class Check : public testing_support::HarnessCliTest {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
};

// Five independent problems: a missing capture, a mistyped counter group, an
// unknown key, a stress-ng job file that does not exist, an unreachable rig.
TEST_F(Check, ReportsFiveIndependentProblemsInOnePassAndStoresNothing) {
  if (!find_executable("ssh")) GTEST_SKIP() << "no OpenSSH client (scripts/install-deps installs openssh-client)";
  if (!find_executable("stress-ng")) GTEST_SKIP() << "no stress-ng (scripts/install-deps installs it)";
  const std::string job = (dir_ / "nightly.job").string();
  const std::string path = write("five.toml", fmt_scenario(closed_port(), job));
  // A store that exists already must not change.
  ASSERT_EQ(harness({"runs"}).exit_code, 0);
  const std::string before = file_bytes(db());

  CommandResult r = harness({"check", path});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  const std::string p = path;
  EXPECT_THAT(r.err, HasSubstr("harness: error: " + p + ": 5 problems:\n"));
  EXPECT_THAT(r.err, HasSubstr("  " + p + ":8:1: [rig] \"board-7\" via ssh:127.0.0.1:"));
  EXPECT_THAT(r.err, HasSubstr("is unreachable: "));
  EXPECT_THAT(r.err, HasSubstr("  " + p + ":15:11: [counters] groups: no counter group \"linux-hots\""));
  EXPECT_THAT(r.err, HasSubstr("did you mean \"linux-host\"?"));
  EXPECT_THAT(r.err, HasSubstr("  " + p + ":19:9: [latency] load \"stress-ng --job " + job +
                               " --cpu 1\": stress-ng refuses it (exit status 1): Cannot open jobfile '" + job + "'"));
  EXPECT_THAT(r.err, HasSubstr("  " + p + ":22:11: [ddr] capture \"missing.sr\": "));
  EXPECT_THAT(r.err, HasSubstr("  " + p + ":25:1: unknown key 'defualt_threshold' in [compare]; did you mean "
                               "'default_threshold'?\n"));
  // In the order of the file.
  EXPECT_LT(r.err.find(":8:1:"), r.err.find(":15:11:"));
  EXPECT_LT(r.err.find(":22:11:"), r.err.find(":25:1:"));
  EXPECT_EQ(file_bytes(db()), before);

  // `run` checks the same before it opens the store: the scenario's four
  // problems, no level started, nothing stored. The unreachable rig is not
  // among them: it is the rig's fault, which a run meets and stores aborted.
  CommandResult run = harness({"run", path});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr(p + ": 4 problems:\n"));
  EXPECT_THAT(run.err, Not(HasSubstr("is unreachable")));
  EXPECT_THAT(run.err, Not(HasSubstr("level ")));
  EXPECT_THAT(run.err, Not(HasSubstr("run 1 started")));
  EXPECT_EQ(file_bytes(db()), before);
  EXPECT_FALSE(fs::exists(db() + ".artifacts")) << "a run folder was made";

  CommandResult dry = harness({"run", "--dry-run", path});
  EXPECT_EQ(dry.exit_code, 2);
  EXPECT_EQ(dry.err, r.err);

  CommandResult json = harness({"--json", "check", path});
  EXPECT_EQ(json.exit_code, 2);
  nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["problems"].size(), 5u);
}

TEST_F(Check, AReadyScenarioSaysWhatWasCheckedAndRunsNothing) {
  const std::string path = write("ok.toml", testing_support::host_scenario("ready") + R"(elements = 1024
[latency]
iterations = 10
load = ["none", "stress-ng --cpu 1"]
)");
  CommandResult r = harness({"check", path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(path + ": ready to run; nothing was run or stored\n"));
  EXPECT_THAT(r.out, HasSubstr("  checked: rig 'test-host' via local: agent harness "));
  EXPECT_FALSE(fs::exists(db()));
  CommandResult dry = harness({"run", "-n", path});
  EXPECT_EQ(dry.exit_code, 0);
  EXPECT_EQ(dry.out, r.out);
  EXPECT_FALSE(fs::exists(db()));
}

TEST_F(Check, AMistypedRequiredKeyIsNamedWithTheKeyItShouldBe) {
  const std::string path = write("typo.toml", testing_support::host_scenario("typo") + R"(elemnts = 1024
)");
  CommandResult r = harness({"check", "--no-rig", path});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "harness: error: " + path + ":7:1: [workload] unknown key 'elemnts'; did you mean 'elements'? (a "
                   "required key)\n");
}

}  // namespace
}  // namespace harness
