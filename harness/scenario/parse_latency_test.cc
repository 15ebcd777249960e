#include "harness/scenario/scenario.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace harness {
namespace {

const std::string kHead = R"([scenario]
name = "t"
[rig]
name = "r"
)";

Result<Scenario> parse(const std::string& workload, const std::string& latency) {
  return parse_scenario(kHead + "[workload]\n" + workload + "\n[latency]\n" + latency, "t.toml");
}

const std::string kGemm = "builtin = \"gemm\"\nm = 8\nn = 8\nk = 8";

TEST(ParseLatency, LoadConditionsBecomeArgvArraysWithNames) {
  Result<Scenario> s = parse(kGemm, R"(load = ["none", "stress-ng --cpu 1", ["/usr/bin/stress-ng", "--vm", "1"]])");
  ASSERT_TRUE(s) << s.error().message;
  const auto& loads = s->latency->loads;
  ASSERT_EQ(loads.size(), 3u);
  EXPECT_EQ(loads[0].name, "none");
  EXPECT_TRUE(loads[0].argv.empty());
  EXPECT_EQ(loads[1].name, "stress-ng-cpu-1");
  EXPECT_THAT(loads[1].argv, testing::ElementsAre("stress-ng", "--cpu", "1"));
  EXPECT_EQ(loads[1].where, "t.toml:11:17");
  EXPECT_EQ(loads[2].name, "stress-ng-vm-1");
}

TEST(ParseLatency, NoLoadKeyMeansOneConditionWithoutLoad) {
  Result<Scenario> s = parse(kGemm, "iterations = 10");
  ASSERT_TRUE(s);
  ASSERT_EQ(s->latency->loads.size(), 1u);
  EXPECT_EQ(s->latency->loads[0].name, "none");
}

TEST(ParseLatency, ShellSyntaxInALoadIsRefused) {
  Result<Scenario> s = parse(kGemm, R"(load = ["stress-ng --cpu 1 | tee log"])");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message,
            "t.toml:11:9: [latency] load: \"stress-ng --cpu 1 | tee log\" has quotes or shell characters; no shell "
            "runs it: write the command as an array of arguments instead");
}

TEST(ParseLatency, ALoadListedTwiceIsRefused) {
  Result<Scenario> s = parse(kGemm, R"(load = ["stress-ng --cpu 1", ["stress-ng", "--cpu", "1"]])");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "t.toml:11:30: [latency] load: condition \"stress-ng-cpu-1\" is listed twice");
}

TEST(ParseLatency, BaselineExpectationsAndPower) {
  Result<Scenario> s = parse(kGemm, R"(
[latency.power]
source = "meter"
command = ["ina226-read", "--watts"]
unit = "W"
interval = "50 ms"
[latency.expect]
p95_over_p50_max = 1.3
latency_p95_max = "800 ms"
efficiency_gain_min = 2.1
power_not_above_baseline = true
)");
  ASSERT_TRUE(s) << s.error().message;
  const LatencyConfig& c = *s->latency;
  EXPECT_EQ(c.power.source, "meter");
  EXPECT_THAT(c.power.command, testing::ElementsAre("ina226-read", "--watts"));
  EXPECT_DOUBLE_EQ(c.power.interval_s, 0.05);
  ASSERT_TRUE(c.efficiency_gain_min);
  EXPECT_DOUBLE_EQ(c.efficiency_gain_min->number, 2.1);
  EXPECT_EQ(c.efficiency_gain_min->where, "t.toml:20:23");
  ASSERT_TRUE(c.power_not_above_baseline);
  std::vector<std::string> metrics;
  for (const Expectation& e : c.expectations) metrics.push_back(e.metric);
  EXPECT_THAT(metrics, testing::ElementsAre("latency_p95", "latency_p95_over_p50", "efficiency_gain",
                                            "power_over_baseline"));
}

TEST(ParseLatency, AMeterNeedsACommand) {
  Result<Scenario> s = parse(kGemm, "[latency.power]\nsource = \"meter\"\n");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message,
            "t.toml:11:1: [latency.power] is missing required key 'command' (source \"meter\" runs it)");
}

TEST(ParseLatency, AStreamingCommandWorkload) {
  Result<Scenario> s = parse(R"(command = ["./serve", "--loop"]
latency_pattern = 'took ([0-9.]+) ms'
latency_unit = "ms"
tokens_per_iteration = 32)", "iterations = 10");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->workload.report.pattern, "took ([0-9.]+) ms");
  EXPECT_DOUBLE_EQ(s->workload.report.unit_s, 1e-3);
  EXPECT_DOUBLE_EQ(s->workload.tokens_per_iteration, 32);
}

TEST(ParseLatency, APatternNeedsOneCaptureGroupAndAUnit) {
  Result<Scenario> groups = parse("command = [\"./serve\"]\nlatency_pattern = 'took [0-9.]+ ms'\nlatency_unit = \"ms\"",
                                  "");
  ASSERT_FALSE(groups);
  EXPECT_EQ(groups.error().message,
            "t.toml:7:19: [workload] latency_pattern: needs exactly one capture group around the number, has 0");
  Result<Scenario> unit = parse("command = [\"./serve\"]\nlatency_field = \"latency_ms\"", "");
  ASSERT_FALSE(unit);
  EXPECT_EQ(unit.error().message,
            "t.toml:5:1: [workload] is missing required key 'latency_unit' (the unit of the reported latencies: "
            "\"s\", \"ms\", \"us\" or \"ns\")");
}

TEST(ParseLatency, ASigrokPowerSource) {
  Result<Scenario> s = parse(kGemm, R"(
[latency.power]
source = "sigrok"
driver = "demo"
channels = "A0"
read_as = "power"
samplerate = "2 kHz"
interval = "20 ms"
)");
  ASSERT_TRUE(s) << s.error().message;
  const PowerConfig& p = s->latency->power;
  EXPECT_EQ(p.source, "sigrok");
  EXPECT_EQ(p.driver, "demo");
  EXPECT_THAT(p.channels, testing::ElementsAre("A0"));
  EXPECT_EQ(p.read_as, "power");
  EXPECT_DOUBLE_EQ(p.samplerate, 2000);
  EXPECT_DOUBLE_EQ(p.interval_s, 0.02);
}

TEST(ParseLatency, SigrokKeysBelongToTheSigrokSource) {
  Result<Scenario> other = parse(kGemm, "[latency.power]\nsource = \"rapl\"\ndriver = \"demo\"\n");
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().message, "t.toml:13:10: [latency.power] driver: only source \"sigrok\" takes it");
  Result<Scenario> fast = parse(kGemm, "[latency.power]\nsource = \"sigrok\"\ndriver = \"demo\"\nchannels = "
                                       "[\"A0\"]\nsamplerate = \"1 MHz\"\n");
  ASSERT_FALSE(fast);
  EXPECT_EQ(fast.error().message, "t.toml:15:14: [latency.power] samplerate: must be from 1 Hz to 100 kHz");
  Result<Scenario> three = parse(kGemm, "[latency.power]\nsource = \"sigrok\"\ndriver = \"demo\"\nchannels = "
                                        "[\"A0\", \"A1\", \"A2\"]\n");
  ASSERT_FALSE(three);
  EXPECT_EQ(three.error().message, "t.toml:14:12: [latency.power] channels: names one power or energy channel, "
                                   "or a voltage and a current channel");
  Result<Scenario> unknown = parse(kGemm, "[latency.power]\nsource = \"sigrock\"\n");
  ASSERT_FALSE(unknown);
  EXPECT_THAT(unknown.error().message, testing::EndsWith("; did you mean \"sigrok\"?"));
}

}  // namespace
}  // namespace harness
