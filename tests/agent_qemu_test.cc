// The agent as a foreign device: the aarch64 harness-agent (scripts/build-agent
// --arch aarch64) started under qemu-user through a `command` transport, as a
// board reached through a shell would be. The latency level is measured on
// the "board" and stored; what qemu-user cannot provide (perf_event_open)
// is unavailable with its reason, not an error.
// Run by scripts/test-agent, which builds that agent and passes its path in
// HARNESS_AGENT_AARCH64; skipped elsewhere.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "probes/process.h"
#include "tests/support/run_harness.h"

namespace harness {
namespace {

using ::testing::HasSubstr;
using nlohmann::json;

class AgentOnQemu : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* agent = std::getenv("HARNESS_AGENT_AARCH64");
    if (!agent || !*agent) GTEST_SKIP() << "HARNESS_AGENT_AARCH64 unset: scripts/test-agent --arch aarch64 runs this";
    agent_ = agent;
    if (!find_executable("qemu-aarch64-static")) GTEST_SKIP() << "qemu-aarch64-static missing (scripts/install-deps --cross)";
    dir_ = std::filesystem::temp_directory_path() / ("harness-qemu-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  CommandResult harness(const std::vector<std::string>& args) {
    return testing_support::run_harness(args, {.timeout_s = 600, .max_output = 1 << 22});
  }

  std::string agent_;
  std::filesystem::path dir_;
};

TEST_F(AgentOnQemu, ALatencyRunThroughACommandTransportIsMeasuredAndStored) {
  // "A shell on the device": sh runs the words it is handed as one command
  // line, as `adb shell` does.
  const std::string scenario = (dir_ / "qemu.toml").string();
  std::ofstream(scenario) << "[scenario]\nname = \"qemu-board\"\n"
                          << "[rig]\nname = \"qemu-aarch64\"\ntransport = \"command\"\n"
                          << "command = [\"sh\", \"-c\", \"eval \\\"$*\\\"\", \"device-shell\"]\n"
                          << "agent = [\"qemu-aarch64-static\", " << json(agent_).dump() << "]\n"
                          << "[workload]\nbuiltin = \"gemm\"\nm = 16\nn = 16\nk = 16\n"
                          << "[counters]\ngroups = [\"linux-host\"]\niterations = 5\n"
                          << "[latency]\niterations = 30\nwarmup = 2\n";
  const std::string db = (dir_ / "runs.sqlite").string();
  const std::string bundle = (dir_ / "bundle").string();
  CommandResult run = harness({"--json", "--db", db, "run", "--no-report", "--record", bundle, scenario});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  json result = json::parse(run.out);
  bool latency = false, counters_unavailable = false;
  for (const json& m : result["metrics"]) {
    const std::string name = m["name"];
    if (name == "latency_p50") {
      latency = true;
      EXPECT_TRUE(m["value"].is_number()) << m.dump();
      EXPECT_EQ(m["provenance"], "measured");
    }
    if (m["value"].is_null() && m.contains("unavailable") &&
        m["unavailable"].get<std::string>().find("Function not implemented (ENOSYS)") != std::string::npos) {
      counters_unavailable = true;
    }
  }
  EXPECT_TRUE(latency) << run.out;
  EXPECT_TRUE(counters_unavailable) << "perf_event_open under qemu-user: " << run.out;

  std::ifstream in(std::filesystem::path(bundle) / "recording.json");
  json rec = json::parse(in);
  EXPECT_EQ(rec["context"]["arch"], "aarch64") << rec["context"].dump(1);
  EXPECT_THAT(rec["rig"]["transport"].get<std::string>(), HasSubstr("command:sh -c"));
  EXPECT_EQ(rec["latency"]["conditions"][0]["start_s"].size(), 30u);
  // Level 2 was read at the edges of those iterations, on the board.
  EXPECT_EQ(rec["counters"]["window"], "latency") << rec["counters"].dump(1).substr(0, 2000);
  EXPECT_EQ(rec["counters"]["iterations"], 30);

  CommandResult show = harness({"show", "1", "--db", db});
  EXPECT_EQ(show.exit_code, 0) << show.err;
  EXPECT_THAT(show.out, ::testing::ContainsRegex(R"(latency_p50 +[0-9.]+ (ns|us|ms) +measured)"));
}

}  // namespace
}  // namespace harness
