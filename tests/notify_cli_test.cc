// [notify] and --notify end to end: the run is stored first, the notifier
// hears of a failed verdict, and one that hangs is cut at its timeout
// without changing what was stored or the exit code.
#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "probes/process.h"
#include "tests/support/loopback_webhook.h"
#include "tests/support/scratch_dir.h"

namespace harness {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class NotifyCli : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing_support::fresh_test_dir("harness-notify-cli"); }
  void TearDown() override { fs::remove_all(dir_); }
  CommandResult harness(std::vector<std::string> args) {
    args.insert(args.begin(), {HARNESS_BINARY, "--db", (dir_ / "runs.sqlite").string()});
    Result<CommandResult> r = run_command(args, {.timeout_s = 120, .max_output = 1 << 20});
    EXPECT_TRUE(r) << r.error().message;
    return r ? *r : CommandResult{};
  }
  // A run whose verdict must fail (no iteration takes a nanosecond): news to notify.
  std::string scenario(const std::string& notify) {
    std::ofstream(dir_ / "s.toml") << R"([scenario]
name = "notified"
[rig]
name = "test-host"
[workload]
builtin = "vector_add"
elements = 1024
[latency]
iterations = 20
warmup = 2
[latency.expect]
latency_p50_max = "1 ns"
)" << notify;
    return (dir_ / "s.toml").string();
  }
  fs::path dir_;
};

TEST_F(NotifyCli, AWebhookHearsOfAFailedVerdictWithTheRunsJson) {
  testing_support::LoopbackWebhook hook({200});
  CommandResult r = harness({"run", "--no-report", "--notify", hook.url(), scenario("")});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("harness: notified: webhook " + hook.url() + "\n"));
  ASSERT_EQ(hook.requests().size(), 1u);
  const std::string& request = hook.requests()[0];
  nlohmann::json body = nlohmann::json::parse(request.substr(request.find("\r\n\r\n") + 4));
  EXPECT_EQ(body["outcome"], "regressed");
  EXPECT_EQ(body["run"]["id"], 1);
  EXPECT_EQ(body["run"]["status"], "failed");
  EXPECT_EQ(body["why"], "1 verdict failed (latency.expect.latency_p50_max)");
}

TEST_F(NotifyCli, AHangingNotifierIsCutAtItsTimeoutAndTheRunIsStored) {
  const std::string path = scenario("[notify]\ncommand = [\"sh\", \"-c\", \"sleep 600\"]\ntimeout = \"1 s\"\n");
  CommandResult r = harness({"run", "--no-report", path});
  EXPECT_EQ(r.exit_code, 1);  // the failed verdict's, not the notifier's
  EXPECT_THAT(r.err, HasSubstr("harness: notify failed: command sh -c sleep 600: timed out after 1 s and was killed\n"));
  CommandResult runs = harness({"--json", "runs"});
  nlohmann::json j = nlohmann::json::parse(runs.out);
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["status"], "failed");
}

TEST_F(NotifyCli, ACommandGetsTheSummaryLineInItsEnvironment) {
  const std::string got = (dir_ / "summary").string();
  const std::string notify = "[notify]\ncommand = [\"sh\", \"-c\", \"echo \\\"$HARNESS_NOTIFY_SUMMARY\\\" >> " + got + "\"]\n";
  EXPECT_EQ(harness({"run", "--no-report", scenario(notify)}).exit_code, 1);
  std::ifstream in(got);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "harness: regressed: run 1 of 'notified' on rig 'test-host': 1 verdict failed "
                  "(latency.expect.latency_p50_max)");
}

}  // namespace
}  // namespace harness
