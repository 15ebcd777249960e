// When a run or a comparison is news, and what the notifier is told.
#include "harness/runner/notify.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace harness {
namespace {

using ::testing::HasSubstr;

class FakeChannel final : public NotifyChannel {
 public:
  FakeChannel(std::vector<Notification>& sent, bool fail) : sent_(sent), fail_(fail) {}
  Status send(const Notification& n) override {
    sent_.push_back(n);
    if (fail_) return Error::infra("webhook http://chat/x: HTTP 502");
    return ok();
  }
  std::string describe() const override { return "fake"; }

 private:
  std::vector<Notification>& sent_;
  bool fail_;
};

struct Sent {
  std::vector<Notification> sent;
  bool fail = false;
  ChannelFactory factory() {
    return [this](const NotifyConfig&) { return std::make_unique<FakeChannel>(sent, fail); };
  }
};

RunRecord failed_run() {
  RunRecord r;
  r.id = 12;
  r.scenario_name = "host";
  r.rig = "lab-3";
  r.status = RunStatus::failed;
  Verdict v;
  v.check = "latency.expect.latency_p95_max";
  v.status = VerdictStatus::fail;
  r.analysis.verdicts = {v};
  return r;
}

TEST(Notify, ARunIsNewsWhenAVerdictFailedAndWhenAskedWhenItWasAborted) {
  RunRecord r = failed_run();
  std::optional<Notification> n = run_notification(r, nullptr, "no earlier night");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->outcome, "regressed");
  EXPECT_EQ(n->summary,
            "harness: regressed: run 12 of 'host' on rig 'lab-3': 1 verdict failed (latency.expect.latency_p95_max)");
  nlohmann::json j = nlohmann::json::parse(n->json);
  EXPECT_EQ(j["outcome"], "regressed");
  EXPECT_EQ(j["run"]["id"], 12);
  EXPECT_TRUE(j["judgement"].is_null());
  EXPECT_EQ(j["not_judged"], "no earlier night");
  r.status = RunStatus::passed;
  r.analysis.verdicts[0].status = VerdictStatus::pass;
  EXPECT_EQ(run_notification(r, nullptr, "no earlier night"), std::nullopt);  // a first night: nothing to tell
  r.status = RunStatus::aborted;
  r.reason = "rig 'lab-3': connection lost";
  n = run_notification(r, nullptr, "");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->outcome, "cannot tell");
  EXPECT_EQ(n->summary,
            "harness: cannot tell: run 12 of 'host' on rig 'lab-3': the run was aborted: rig 'lab-3': connection lost");

  Sent s;
  NotifyConfig config;
  config.command = {"notify-lab"};
  EXPECT_EQ(notify_if_asked(config, {"{}", "x", "cannot tell"}, s.factory()), std::nullopt);  // not asked for
  EXPECT_EQ(notify_if_asked(config, {"{}", "x", "unchanged"}, s.factory()), std::nullopt);
  EXPECT_EQ(notify_if_asked(config, {"{}", "x", "improved"}, s.factory()), std::nullopt);
  EXPECT_TRUE(s.sent.empty());
  config.on_cannot_tell = true;
  EXPECT_EQ(notify_if_asked(config, {"{}", "x", "cannot tell"}, s.factory()), "notified: fake");
  EXPECT_EQ(notify_if_asked(config, {"{}", "y", "regressed"}, s.factory()), "notified: fake");
  ASSERT_EQ(s.sent.size(), 2u);
  EXPECT_EQ(s.sent[1].summary, "y");
}

CompareReport judged_report() {
  CompareReport report;
  report.current_run = 14;
  report.baseline_run = 9;
  report.baseline_runs = {5, 6, 7, 8, 9};
  report.scenario = "host";
  report.rig = "lab-3";
  return report;
}

MetricComparison row(const std::string& name, Change verdict, std::optional<double> current, const std::string& reason) {
  MetricComparison m;
  m.name = name;
  m.verdict = verdict;
  m.baseline = current ? std::optional<double>(1.0) : std::nullopt;
  m.current = current;
  m.baseline_text = current ? "" : "unavailable: no power source";
  m.current_text = m.baseline_text;
  m.reason = reason;
  return m;
}

TEST(Notify, ANightIsToldInItsJudgementsFourOutcomesWithWhy) {
  CompareReport report = judged_report();
  report.comparison.metrics = {row("power_mean", Change::cannot_tell, std::nullopt, "unavailable in both runs: no power source"),
                               row("latency_p50", Change::unchanged, 1.01, "within the threshold")};
  // A metric the rig has no source for tells nothing: the night is unchanged.
  Notification n = comparison_notification(report);
  EXPECT_EQ(n.outcome, "unchanged");
  EXPECT_EQ(n.summary, "harness: unchanged: run 14 of 'host' on rig 'lab-3' against the 5 nights up to run 9: 1 metric "
                       "judged, none regressed or improved");
  report.comparison.metrics.push_back(
      row("latency_p95", Change::cannot_tell, 1.2, "the spread between nights is too wide for the ±5 % threshold"));
  n = comparison_notification(report);
  EXPECT_EQ(n.outcome, "cannot tell");
  EXPECT_EQ(n.summary, "harness: cannot tell: run 14 of 'host' on rig 'lab-3' against the 5 nights up to run 9: 1 "
                       "metric cannot tell: latency_p95 (the spread between nights is too wide for the ±5 % threshold)");
  EXPECT_EQ(nlohmann::json::parse(n.json)["why"],
            "1 metric cannot tell: latency_p95 (the spread between nights is too wide for the ±5 % threshold)");
  // Not a regression and not a pass: a run judged cannot tell says so too.
  RunRecord passed = failed_run();
  passed.status = RunStatus::passed;
  passed.analysis.verdicts.clear();
  std::optional<Notification> of_run = run_notification(passed, &report, "");
  ASSERT_TRUE(of_run);
  EXPECT_EQ(of_run->outcome, "cannot tell");

  MetricComparison slow = row("latency_p99", Change::regressed, 1.123, "significant");
  slow.relative_change = 0.123;
  report.comparison.metrics.push_back(slow);
  report.baseline_name = "nightly";
  n = comparison_notification(report);
  EXPECT_EQ(n.outcome, "regressed");
  EXPECT_EQ(n.summary, "harness: regressed: run 14 of 'host' on rig 'lab-3' against baseline 'nightly': 1 metric "
                       "regressed: latency_p99 +12.3 %");
  report.comparison.metrics.back().acknowledged = "by ana on 2024-05-01: known";
  EXPECT_EQ(comparison_notification(report).outcome, "cannot tell");
  report.comparison.metrics[2].verdict = Change::improved;
  report.comparison.metrics[2].relative_change = -0.2;
  EXPECT_EQ(comparison_notification(report).outcome, "improved");
}

TEST(Notify, AFailingNotifierIsReportedNotAnError) {
  Sent s;
  s.fail = true;
  NotifyConfig config;
  config.webhook = "http://chat/x";
  EXPECT_EQ(notify_if_asked(config, {"{}", "x", "regressed"}, s.factory()),
            "notify failed: webhook http://chat/x: HTTP 502");
}

TEST(Notify, TheFlagWinsOverTheScenariosSection) {
  const std::string text = "[notify]\nwebhook = \"https://chat.lab/hooks/1\"\non = [\"regressed\", \"cannot tell\"]\n"
                           "timeout = \"5 s\"\nretries = 3\n";
  Result<std::optional<NotifyConfig>> from_text = notify_config_for("", false, text, "s.toml");
  ASSERT_TRUE(from_text && *from_text);
  EXPECT_EQ((*from_text)->webhook, "https://chat.lab/hooks/1");
  EXPECT_TRUE((*from_text)->on_cannot_tell);
  EXPECT_EQ((*from_text)->timeout_s, 5);
  EXPECT_EQ((*from_text)->retries, 3);
  Result<std::optional<NotifyConfig>> flag = notify_config_for("notify-lab --room ci", false, text, "s.toml");
  ASSERT_TRUE(flag && *flag);
  EXPECT_EQ((*flag)->command, (std::vector<std::string>{"notify-lab", "--room", "ci"}));
  EXPECT_FALSE((*flag)->on_cannot_tell);
  Result<std::optional<NotifyConfig>> none = notify_config_for("", false, "[scenario]\nname = \"x\"\n", "s.toml");
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
  Result<std::optional<NotifyConfig>> bad = notify_config_for("", false, "[notify]\nwebhook = \"ftp://x\"\n", "s.toml");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "s.toml:2:11: [notify] webhook: must be an http:// or https:// URL");
}

}  // namespace
}  // namespace harness
