#include "harness/levels/latency.h"

#include <cmath>
#include <tuple>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace harness {
namespace {

Scenario scenario_with(std::vector<LoadCondition> loads = {{"none", {}, ""}}) {
  Scenario s;
  s.latency.emplace();
  s.latency->loads = std::move(loads);
  return s;
}

// Latencies 1..n ms in a shuffled order, over a window of `window_s`.
LatencyCondition known_condition(std::string name, int n, double window_s) {
  LatencyCondition c;
  c.name = std::move(name);
  for (int i = 0; i < n; ++i) {
    int v = (i * 37) % n + 1;  // 37 is prime to 100 and 400: a permutation
    c.latency_s.push_back(v * 1e-3);
    c.start_s.push_back(i * window_s / n);
  }
  c.window_s = window_s;
  return c;
}

// The analysis of a recording of `source` that holds `conditions`.
Analysis analysed(const Scenario& s, std::string source, std::vector<LatencyCondition> conditions,
                  Provenance provenance = Provenance::measured) {
  LatencyRecording rec;
  rec.source = std::move(source);
  rec.conditions = std::move(conditions);
  Analysis a;
  analyse_latency(s, &rec, provenance, a);
  return a;
}

double value(const Analysis& a, const std::string& name) {
  const Metric* m = a.find_metric(name);
  EXPECT_TRUE(m) << name;
  if (!m || !m->value) {
    ADD_FAILURE() << name << " unavailable: " << (m ? m->unavailable : "");
    return NAN;
  }
  return *m->value;
}

std::string unavailable(const Analysis& a, const std::string& name) {
  const Metric* m = a.find_metric(name);
  return m ? m->unavailable : "no metric " + name;
}

TEST(LatencyAnalysis, PercentilesOfAKnownDistribution) {
  Analysis a = analysed(scenario_with(), "stream:latency_stream.sh", {known_condition("none", 100, 2.0)});
  // numpy.percentile(range(1, 101), p) in ms
  EXPECT_NEAR(value(a, "latency_p50"), 50.5e-3, 1e-12);
  EXPECT_NEAR(value(a, "latency_p90"), 90.1e-3, 1e-12);
  EXPECT_NEAR(value(a, "latency_p95"), 95.05e-3, 1e-12);
  EXPECT_NEAR(value(a, "latency_max"), 100e-3, 1e-12);
  EXPECT_NEAR(value(a, "latency_mean"), 50.5e-3, 1e-12);
  EXPECT_NEAR(value(a, "latency_stddev"), 29.011491975882016e-3, 1e-12);  // numpy.std(ddof=1)
  EXPECT_NEAR(value(a, "latency_p95_over_p50"), 95.05 / 50.5, 1e-12);
  // Order statistics 40 and 61 of 100 cover the median with 96.5 %.
  EXPECT_NEAR(value(a, "latency_p50_ci_low"), 40e-3, 1e-12);
  EXPECT_NEAR(value(a, "latency_p50_ci_high"), 61e-3, 1e-12);
  EXPECT_NEAR(value(a, "latency_p95_ci_low"), 90e-3, 1e-12);
  EXPECT_NEAR(value(a, "latency_p95_ci_high"), 100e-3, 1e-12);
  EXPECT_DOUBLE_EQ(value(a, "throughput"), 50);
  EXPECT_DOUBLE_EQ(value(a, "iterations"), 100);
  EXPECT_EQ(unavailable(a, "latency_p99"),
            "p99 needs at least 368 iterations for a distribution-free 95 % confidence interval, got 100");
  EXPECT_EQ(a.find_metric("latency_p50_ci_low")->source,
            "stream:latency_stream.sh: 95 % interval of p50: order statistics 40 and 61 of 100 (coverage 0.9648)");
  ASSERT_EQ(a.samples.size(), 1u);
  EXPECT_EQ(a.samples[0].name, "latency");
  EXPECT_EQ(a.samples[0].values.size(), 100u);
}

TEST(LatencyAnalysis, TooFewIterationsSayWhichPercentilesCannotBeReported) {
  Analysis a = analysed(scenario_with(), "builtin:gemm", {known_condition("none", 20, 1.0)});
  EXPECT_NEAR(value(a, "latency_p50"), 10.5e-3, 1e-12);
  EXPECT_EQ(unavailable(a, "latency_p95"),
            "p95 needs at least 72 iterations for a distribution-free 95 % confidence interval, got 20");
  EXPECT_EQ(unavailable(a, "latency_p95_over_p50"), unavailable(a, "latency_p95"));
  EXPECT_EQ(unavailable(a, "latency_p95_ci_high"), unavailable(a, "latency_p95"));
}

TEST(LatencyAnalysis, EachLoadConditionHasItsOwnPrefixedMetricsAndSamples) {
  Scenario s = scenario_with({{"none", {}, ""}, {"stress-ng-cpu-1", {"stress-ng", "--cpu", "1"}, ""}});
  LatencyCondition loaded = known_condition("stress-ng-cpu-1", 100, 4.0);
  for (double& v : loaded.latency_s) v *= 2;
  loaded.load = {"stress-ng", "--cpu", "1"};
  Analysis a = analysed(s, "builtin:gemm", {known_condition("none", 100, 1.0), loaded}, Provenance::replayed);
  EXPECT_NEAR(value(a, "latency_p50"), 50.5e-3, 1e-12);
  EXPECT_NEAR(value(a, "load.stress-ng-cpu-1.latency_p50"), 101e-3, 1e-12);
  EXPECT_DOUBLE_EQ(value(a, "load.stress-ng-cpu-1.throughput"), 25);
  const Metric* m = a.find_metric("load.stress-ng-cpu-1.latency_p95");
  EXPECT_EQ(m->source, "builtin:gemm under load \"stress-ng --cpu 1\": p95 of 100 iterations");
  EXPECT_EQ(m->provenance, Provenance::replayed);
  ASSERT_EQ(a.samples.size(), 2u);
  EXPECT_EQ(a.samples[1].name, "load.stress-ng-cpu-1.latency");
  EXPECT_THAT(a.hints, testing::ElementsAre(
                           "latency: p95 under load \"stress-ng --cpu 1\" is 2x that of \"none\" (190.1 ms vs 95.05 ms)"));
}

TEST(LatencyAnalysis, AConditionMissingFromAnAbortedRunIsUnavailable) {
  Scenario s = scenario_with({{"none", {}, ""}, {"stress-ng-cpu-1", {"stress-ng", "--cpu", "1"}, ""}});
  Analysis a = analysed(s, "builtin:gemm", {known_condition("none", 100, 1.0)});
  EXPECT_EQ(unavailable(a, "load.stress-ng-cpu-1.latency_p50"),
            "no latency samples recorded under load \"stress-ng --cpu 1\"");
}

TEST(LatencyAnalysis, PowerFromAnEnergyCounterGivesEnergyAndEfficiency) {
  LatencyCondition c = known_condition("none", 100, 2.0);
  c.power = {"rapl:/fake (intel-rapl:0)", "energy", {0, 1, 2}, {10, 13, 16}, ""};  // 3 W
  Analysis a = analysed(scenario_with(), "builtin:gemm", {c});
  EXPECT_DOUBLE_EQ(value(a, "power_mean"), 3);
  EXPECT_DOUBLE_EQ(value(a, "energy_per_iteration"), 3.0 / 50);  // 3 W at 50 iterations/s
  EXPECT_DOUBLE_EQ(value(a, "efficiency"), 50.0 / 3);
  EXPECT_EQ(a.find_metric("efficiency")->unit, "1/J");
}

TEST(LatencyAnalysis, PowerReadingsAreAveragedOverTimeAndTokensCount) {
  Scenario s = scenario_with();
  s.workload.tokens_per_iteration = 32;
  LatencyCondition c = known_condition("none", 100, 2.0);
  c.power = {"meter:ina226", "power", {0, 1, 3}, {2, 4, 4}, ""};  // (3*1 + 4*2) / 3 W
  Analysis a = analysed(s, "stream:serve", {c});
  EXPECT_DOUBLE_EQ(value(a, "power_mean"), 11.0 / 3);
  EXPECT_DOUBLE_EQ(value(a, "token_throughput"), 50.0 * 32);
  EXPECT_DOUBLE_EQ(value(a, "efficiency"), 50.0 * 32 / (11.0 / 3));
  EXPECT_EQ(a.find_metric("efficiency")->unit, "token/J");
}

TEST(LatencyAnalysis, NoPowerSourceMakesPowerAndEfficiencyUnavailable) {
  LatencyCondition c = known_condition("none", 100, 2.0);
  c.power.unavailable = "no powercap/RAPL zone under /sys/class/powercap";
  Analysis a = analysed(scenario_with(), "builtin:gemm", {c});
  EXPECT_EQ(unavailable(a, "power_mean"), "no powercap/RAPL zone under /sys/class/powercap");
  EXPECT_EQ(unavailable(a, "efficiency"), "needs power: no powercap/RAPL zone under /sys/class/powercap");
  EXPECT_EQ(unavailable(a, "efficiency_gain"), "needs a baseline");
}

TEST(LatencyAnalysis, RecordingRoundTripsThroughJsonAndReadsTheFirstFormat) {
  LatencyRecording rec;
  rec.source = "builtin:gemm";
  LatencyCondition c = known_condition("none", 3, 1.0);
  c.load = {"stress-ng", "--cpu", "1"};
  c.load_end = "killed by signal 15 (Terminated)";
  c.power = {"hwmon:x", "power", {0, 0.1}, {5, 6}, ""};
  rec.conditions.push_back(c);
  nlohmann::json j = rec;
  LatencyRecording back = j.get<LatencyRecording>();
  EXPECT_EQ(nlohmann::json(back), j);

  nlohmann::json old = {{"source", "builtin:gemm"}, {"start_s", {0.0, 0.1}}, {"latency_s", {0.1, 0.2}},
                        {"window_s", 0.3}, {"unavailable", ""}, {"power_unavailable", "no power source configured"}};
  LatencyRecording first = old.get<LatencyRecording>();
  ASSERT_EQ(first.conditions.size(), 1u);
  EXPECT_EQ(first.conditions[0].name, "none");
  EXPECT_EQ(first.conditions[0].latency_s.size(), 2u);
  EXPECT_EQ(first.conditions[0].power.unavailable, "no power source configured");
}

Analysis with_power_and_efficiency(double power, double efficiency) {
  Analysis a;
  for (auto [name, value, unit] : {std::tuple{"power_mean", power, "W"}, std::tuple{"efficiency", efficiency, "1/J"}}) {
    Metric& m = a.metrics.emplace_back();
    m.name = name, m.value = value, m.unit = unit;
  }
  return a;
}

LatencyConfig baseline_config() {
  LatencyConfig c;
  auto expectation = [](std::string key, std::string metric, Bound bound, double number, std::string where) {
    Expectation e;
    e.key = std::move(key), e.metric = std::move(metric), e.bound = bound, e.number = number, e.where = std::move(where);
    return e;
  };
  c.efficiency_gain_min = expectation("efficiency_gain_min", "efficiency_gain", Bound::min, 2.1, "rig.toml:40:24");
  c.power_not_above_baseline =
      expectation("power_not_above_baseline", "power_over_baseline", Bound::max, 1, "rig.toml:41:28");
  return c;
}

TEST(LatencyBaseline, EfficiencyGainAndPowerAgainstTheBaseline) {
  std::vector<Verdict> v = evaluate_latency_baseline(baseline_config(), with_power_and_efficiency(10, 4),
                                                     with_power_and_efficiency(9, 9.2));
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].check, "latency.expect.efficiency_gain_min");
  EXPECT_EQ(v[0].expected, ">= 2.1x baseline");
  EXPECT_EQ(v[0].measured, "2.3x (9.2 1/J vs 4 1/J)");
  EXPECT_EQ(v[0].status, VerdictStatus::pass);
  EXPECT_EQ(v[1].check, "latency.expect.power_not_above_baseline");
  EXPECT_EQ(v[1].status, VerdictStatus::pass);

  std::vector<Verdict> worse = evaluate_latency_baseline(baseline_config(), with_power_and_efficiency(10, 4),
                                                         with_power_and_efficiency(11, 8));
  EXPECT_EQ(worse[0].status, VerdictStatus::fail);
  EXPECT_EQ(worse[0].detail, "efficiency is 2x the baseline, expected >= 2.1x baseline (rig.toml:40:24)");
  EXPECT_EQ(worse[1].status, VerdictStatus::fail);
  EXPECT_EQ(worse[1].measured, "1.1x (11 W vs 10 W)");
}

TEST(LatencyBaseline, UnavailableWhenEitherRunLacksPower) {
  Analysis none;
  none.metrics.push_back(Metric::missing(Level::latency, "efficiency", "1/J", "needs power: no power source configured"));
  std::vector<Verdict> v = evaluate_latency_baseline(baseline_config(), none, with_power_and_efficiency(9, 9));
  EXPECT_EQ(v[0].status, VerdictStatus::unavailable);
  EXPECT_EQ(v[0].measured, "unavailable: efficiency of the baseline: needs power: no power source configured");
  EXPECT_EQ(v[1].measured, "unavailable: power_mean of the baseline: not produced");
}

}  // namespace
}  // namespace harness

namespace harness {
namespace {

// A run with a same-run reference: `rounds` rounds of `per_block` iterations
// a side, the rig's speed drifting by +-30 % from round to round (both sides
// see it), the candidate `factor` x the reference; the sides' order alternates.
LatencyCondition paired_condition(int rounds, int per_block, double factor) {
  LatencyCondition c;
  c.name = "none";
  double t = 0;
  for (int r = 0; r < rounds; ++r) {
    const double rig = 300e-6 * (1 + 0.3 * std::sin(r));
    for (int side = 0; side < 2; ++side) {
      const bool reference = (side == 0) == (r % 2 == 1);
      c.blocks.push_back({r, reference, c.latency_s.size(), static_cast<std::size_t>(per_block)});
      for (int i = 0; i < per_block; ++i) {
        const double noise = 1 + 0.01 * ((i * 7) % 5 - 2);  // -2 % .. +2 %, the same on both sides
        const double latency = rig * noise * (reference ? 1.0 : factor);
        c.start_s.push_back(t);
        c.latency_s.push_back(latency);
        t += latency + 1e-6;
      }
    }
  }
  c.window_s = t;
  return c;
}

TEST(LatencyPaired, EachSideIsAnalysedOnItsOwnAndTheRoundsGiveRatios) {
  Scenario s = scenario_with();
  LatencyRecording rec;
  rec.source = "builtin:gemm";
  rec.reference_source = "builtin:gemm";
  rec.pairing = "ABBA order";
  rec.conditions.push_back(paired_condition(20, 20, 1.10));
  Analysis a;
  analyse_latency(s, &rec, Provenance::measured, a);
  ASSERT_TRUE(a.find_metric("iterations"));
  EXPECT_EQ(*a.find_metric("iterations")->value, 400);  // the candidate's only
  const Metric* ref = a.find_metric("reference.latency_p50");
  ASSERT_TRUE(ref && ref->value);
  const Metric* cand = a.find_metric("latency_p50");
  ASSERT_TRUE(cand && cand->value);
  EXPECT_GT(*cand->value, *ref->value);
  for (const char* stat : {"latency_p50", "latency_p90", "latency_mean", "throughput"}) {
    SCOPED_TRACE(stat);
    const SampleSet* ratios = a.find_samples(std::string("vs_reference.") + stat);
    ASSERT_TRUE(ratios);
    EXPECT_EQ(ratios->values.size(), 20u);
    const double expected = std::string(stat) == "throughput" ? 1 / 1.10 : 1.10;
    for (double r : ratios->values) EXPECT_NEAR(r, expected, 0.002);
    const Metric* m = a.find_metric(std::string("vs_reference.") + stat);
    ASSERT_TRUE(m && m->value);
    EXPECT_NEAR(*m->value, expected, 0.002);
  }
  const Metric* power = a.find_metric("vs_reference.power_mean");
  ASSERT_TRUE(power);
  EXPECT_EQ(power->unavailable, "no round gave both sides' figure");
  // The candidate's own iterations in the order they ran: what persistence cuts into stretches.
  EXPECT_EQ(a.find_samples("latency")->values.size(), 400u);
  EXPECT_EQ(side_latencies(rec.conditions[0], true).size(), 400u);
}

TEST(LatencyPaired, BlocksSurviveTheRecordingAndABrokenBlockIsRefused) {
  LatencyRecording rec;
  rec.source = "builtin:gemm";
  rec.reference_source = "command:./old";
  rec.pairing = "random order, seed 7";
  rec.conditions.push_back(paired_condition(3, 4, 1.0));
  nlohmann::json j = rec;
  LatencyRecording back = j.get<LatencyRecording>();
  ASSERT_EQ(back.conditions[0].blocks.size(), 6u);
  EXPECT_EQ(back.conditions[0].blocks[3].round, 1);
  EXPECT_EQ(back.conditions[0].blocks[3].first, 12u);
  EXPECT_EQ(back.reference_source, "command:./old");
  EXPECT_EQ(back.pairing, "random order, seed 7");
  j["conditions"][0]["blocks"][5][3] = 1000;  // beyond the condition's iterations
  EXPECT_THROW(j.get<LatencyRecording>(), nlohmann::json::exception);
}

TEST(LatencyPaired, PowerIsAveragedOverEachSidesBlocks) {
  Scenario s = scenario_with();
  LatencyRecording rec;
  rec.source = "builtin:gemm";
  rec.reference_source = "builtin:gemm";
  LatencyCondition c = paired_condition(4, 10, 1.0);
  // 10 W while the candidate runs, 5 W while the reference does, read every 50 us.
  c.power.source = "fake";
  c.power.quantity = "power";
  c.power.unavailable.clear();
  for (double t = 0; t <= c.window_s + 1e-4; t += 50e-6) {
    bool reference = false;
    for (const PairedBlock& b : c.blocks) {
      const double from = c.start_s[b.first], to = c.start_s[b.first + b.count - 1] + c.latency_s[b.first + b.count - 1];
      if (t >= from && t < to) reference = b.reference;
    }
    c.power.t_s.push_back(t);
    c.power.value.push_back(reference ? 5.0 : 10.0);
  }
  rec.conditions.push_back(c);
  Analysis a;
  analyse_latency(s, &rec, Provenance::measured, a);
  const Metric* cand = a.find_metric("power_mean");
  const Metric* ref = a.find_metric("reference.power_mean");
  ASSERT_TRUE(cand && cand->value && ref && ref->value);
  EXPECT_NEAR(*cand->value, 10.0, 0.6);  // the ramps at the block edges blur it a little
  EXPECT_NEAR(*ref->value, 5.0, 0.6);
  const Metric* ratio = a.find_metric("vs_reference.power_mean");
  ASSERT_TRUE(ratio && ratio->value);
  EXPECT_NEAR(*ratio->value, 2.0, 0.3);
}

}  // namespace
}  // namespace harness
