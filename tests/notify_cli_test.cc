// [notify] and --notify end to end: the run is stored first, the notifier
// hears of a failed verdict, and one that hangs is cut at its timeout
// without changing what was stored or the exit code.
#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "probes/process.h"
#include "tests/support/harness_cli_test.h"
#include "tests/support/host_scenario.h"
#include "tests/support/loopback_webhook.h"

namespace harness {
namespace {

using ::testing::HasSubstr;

class NotifyCli : public testing_support::HarnessCliTest {
 protected:
  // By default a run whose verdict must fail (no iteration takes a
  // nanosecond): news to notify.
  std::string scenario(const std::string& notify, const std::string& name = "notified",
                       const std::string& expect = "[latency.expect]\nlatency_p50_max = \"1 ns\"\n") {
    std::ofstream(dir_ / "s.toml") << testing_support::host_scenario(name) << R"(elements = 1024
[latency]
iterations = 30
warmup = 2
)" << expect << notify;
    return (dir_ / "s.toml").string();
  }
};

TEST_F(NotifyCli, AWebhookHearsOfAFailedVerdictWithTheRunsJson) {
  testing_support::LoopbackWebhook hook({200});
  CommandResult r = harness({"run", "--no-report", "--notify", hook.url(), scenario("")});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("harness: notified: webhook " + hook.url() + "\n"));
  ASSERT_EQ(hook.requests().size(), 1u);
  const std::string request = hook.requests()[0];
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

// The second night of a scenario is judged against the first, as `compare
// RUN` judges it: one night cannot show how far the rig's nights wander, so
// it cannot tell. The notifier hears "cannot tell" with why (never a pass or
// a regression), and export --openmetrics says the same.
TEST_F(NotifyCli, ANightThatCannotBeToldIsToldSoByTheNotifierAndTheExport) {
  const std::string path = scenario("", "nights", "");
  const std::string got = (dir_ / "told.json").string();
  const std::string notify = "sh -c cat>" + got;
  EXPECT_EQ(harness({"run", "--no-report", "--notify", notify, "--notify-cannot-tell", path}).exit_code, 0);
  EXPECT_FALSE(std::filesystem::exists(got)) << "a first night has nothing to judge it by";
  CommandResult second = harness({"run", "--no-report", "--notify", notify, "--notify-cannot-tell", path});
  EXPECT_EQ(second.exit_code, 0) << second.err;
  EXPECT_THAT(second.err, HasSubstr("harness: notified: command sh -c cat>" + got + "\n"));
  std::ifstream in(got);
  nlohmann::json told = nlohmann::json::parse(in);
  EXPECT_EQ(told["outcome"], "cannot tell");
  EXPECT_THAT(told["why"].get<std::string>(), HasSubstr(" cannot tell: "));
  EXPECT_EQ(told["run"]["id"], 2);
  EXPECT_EQ(told["judgement"]["current"]["run"], 2);

  // compare RUN judges it the same way.
  nlohmann::json compared = nlohmann::json::parse(harness({"--json", "compare", "2"}).out);
  EXPECT_EQ(compared["undecided"], true);
  EXPECT_EQ(compared["regressed"], false);

  CommandResult exported = harness({"export", "--openmetrics", "-"});
  EXPECT_EQ(exported.exit_code, 0) << exported.err;
  EXPECT_THAT(exported.out,
              HasSubstr("harness_judgement{rig=\"test-host\",scenario=\"nights\",harness_judgement=\"cannot tell\"} 1\n"));
  EXPECT_THAT(exported.out,
              HasSubstr("harness_judgement{rig=\"test-host\",scenario=\"nights\",harness_judgement=\"unchanged\"} 0\n"));
  EXPECT_THAT(exported.out, HasSubstr("harness_judgement_info{rig=\"test-host\",scenario=\"nights\",outcome=\"cannot tell\",why=\"" +
                                          told["why"].get<std::string>()));
}

}  // namespace
}  // namespace harness
