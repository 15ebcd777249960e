#include "harness/compare/compare.h"

#include <algorithm>
#include <cmath>
#include <random>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "harness/base/stats.h"
#include "harness/compare/persistence.h"

namespace harness {
namespace {

Metric value(const std::string& name, double v, Better better = Better::lower,
             Provenance p = Provenance::measured) {
  Metric m;
  m.level = Level::latency;
  m.name = name;
  m.value = v;
  m.unit = std::string("s");  // (assigning the literal trips GCC 12's -Wrestrict)
  m.provenance = p;
  m.better = better;
  return m;
}

std::vector<double> lognormal(std::size_t n, double median, double sigma, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> d(std::log(median), sigma);
  std::vector<double> v(n);
  for (double& x : v) x = d(rng);
  return v;
}

SampleSet samples(const std::string& name, std::vector<double> v, Provenance p = Provenance::measured) {
  return {Level::latency, name, "s", p, "test", Better::lower, std::move(v)};
}

// A baseline set of `nights`, as compare_analyses takes it.
std::vector<const Analysis*> members(const std::vector<Analysis>& nights) {
  std::vector<const Analysis*> out;
  for (const Analysis& a : nights) out.push_back(&a);
  return out;
}

const MetricComparison& row(const Comparison& c, const std::string& name) {
  for (const MetricComparison& m : c.metrics)
    if (m.name == name) return m;
  ADD_FAILURE() << "no row " << name;
  return c.metrics.front();
}

// The rig's calibration: a between-night spread of `sd` on the log scale
// from `nights` A/A nights, for every metric.
CalibrationLookup calibrated(double sd, int nights = 20) {
  return [=](const std::string&) {
    return std::optional<NightSpread>(
        NightSpread{sd, double(nights - 1), ChangeScale::log_ratio, fmt::format("calibration ({} nights)", nights)});
  };
}

TEST(Compare, OneBaselineNightWithoutASpreadCannotTell) {
  // Two runs alone cannot show how far this rig's nights wander: a +20 %
  // could be Tuesday, and an unchanged +1 % could hide what the rig cannot resolve.
  Analysis a, b;
  a.metrics = {value("slower", 1.0), value("small", 1.0)};
  b.metrics = {value("slower", 1.2), value("small", 1.01)};
  Comparison c = compare_analyses(a, b, CompareConfig{});
  for (const char* name : {"slower", "small"}) {
    EXPECT_EQ(row(c, name).verdict, Change::cannot_tell) << name;
    EXPECT_EQ(row(c, name).decided_by, "spread unknown");
  }
  EXPECT_EQ(row(c, "slower").reason,
            "one baseline night cannot show how far this rig's nights spread, and there is no calibration (harness "
            "calibrate) and no history of 5 earlier runs: a baseline of 3 or more nights, or a calibration, can tell");
  EXPECT_NEAR(*row(c, "slower").relative_change, 0.2, 1e-12);
  EXPECT_EQ(c.tests, 0u);
  EXPECT_FALSE(c.regressed());
  EXPECT_TRUE(c.undecided());
}

TEST(Compare, ACalibrationLetsOneBaselineNightJudgeAndStatesWhatItCouldSee) {
  Analysis a, b;
  a.metrics = {value("slower", 1.0), value("small", 1.0), value("bw", 100, Better::higher)};
  b.metrics = {value("slower", 1.2), value("small", 1.01), value("bw", 80, Better::higher)};
  Comparison c = compare_analyses(a, b, CompareConfig{}, {}, {}, calibrated(0.02));
  const MetricComparison& slower = row(c, "slower");
  EXPECT_EQ(slower.verdict, Change::regressed) << slower.reason;
  EXPECT_EQ(slower.basis, "1 baseline night, the spread of calibration (20 nights)");
  EXPECT_NEAR(*slower.effect, 0.2, 1e-9);
  const MetricComparison& small = row(c, "small");
  EXPECT_EQ(small.verdict, Change::unchanged) << small.reason;
  ASSERT_TRUE(small.detectable);
  EXPECT_LT(*small.detectable, 0.10);  // what the calibrated spread could see: below the 10 % threshold
  EXPECT_NE(small.reason.find("inside the ±10 % threshold; would detect ≥ 8.7 %"), std::string::npos)
      << small.reason;
  EXPECT_EQ(row(c, "bw").verdict, Change::regressed);  // higher is better, and it fell
  EXPECT_EQ(c.tests, 3u);
  // A wider calibrated spread cannot see 10 %: cannot tell, never unchanged.
  c = compare_analyses(a, b, CompareConfig{}, {}, {}, calibrated(0.06));
  EXPECT_EQ(row(c, "small").verdict, Change::cannot_tell);
  EXPECT_EQ(row(c, "small").decided_by, "spread");
}

TEST(Compare, PerMetricThresholdOverridesTheDefault) {
  Analysis a, b;
  a.metrics = {value("latency_p95", 1.0)};
  b.metrics = {value("latency_p95", 1.2)};
  CompareConfig config;
  EXPECT_EQ(compare_analyses(a, b, config, {}, {}, calibrated(0.005)).metrics[0].verdict, Change::regressed);
  config.metric_threshold["latency_p95"] = 0.25;
  EXPECT_EQ(compare_analyses(a, b, config, {}, {}, calibrated(0.005)).metrics[0].verdict, Change::unchanged);
}

TEST(Compare, CannotTellWhenMissingUnavailableOrDifferentEvidence) {
  Analysis a, b;
  a.metrics = {value("only_base", 1), Metric::missing(Level::latency, "power_mean", "W", "no power source"),
               value("ceiling", 5e10, Better::higher, Provenance::declared), value("replayed", 2.0)};
  b.metrics = {value("only_new", 1), Metric::missing(Level::latency, "power_mean", "W", "no power source"),
               value("ceiling", 3e10, Better::higher, Provenance::measured),
               value("replayed", 2.0, Better::lower, Provenance::replayed)};
  Comparison c = compare_analyses(a, b, CompareConfig{}, {}, {}, calibrated(0.01));
  EXPECT_EQ(row(c, "only_base").verdict, Change::cannot_tell);
  EXPECT_EQ(row(c, "only_base").reason, "missing in the new run");
  EXPECT_EQ(row(c, "only_new").reason, "missing in the baseline run");
  EXPECT_EQ(row(c, "power_mean").reason, "unavailable in both runs: no power source");
  EXPECT_EQ(row(c, "ceiling").verdict, Change::cannot_tell);
  EXPECT_EQ(row(c, "ceiling").reason, "provenance differs: declared vs measured");
  EXPECT_TRUE(row(c, "power_mean").nothing_to_judge);
  EXPECT_FALSE(row(c, "ceiling").nothing_to_judge);
  // A replay re-analyses a measurement: the same kind of evidence.
  EXPECT_EQ(row(c, "replayed").verdict, Change::unchanged);
  EXPECT_FALSE(c.regressed());
}

// A declared ceiling is judged as it stands; a model's figure over measured
// times (level 1's utilisation) moves between nights like what it is made of:
// one baseline night cannot tell, however large the change.
TEST(Compare, OnlyDeclaredFiguresAreFreeOfNoiseBetweenNights) {
  Analysis a, b;
  a.metrics = {value("ceiling", 5e10, Better::higher, Provenance::declared),
               value("softmax.utilisation", 0.090, Better::higher, Provenance::model)};
  b.metrics = {value("ceiling", 3e10, Better::higher, Provenance::declared),
               value("softmax.utilisation", 0.059, Better::higher, Provenance::model)};
  Comparison c = compare_analyses(a, b, CompareConfig{});
  EXPECT_EQ(row(c, "ceiling").verdict, Change::regressed) << row(c, "ceiling").reason;
  EXPECT_NE(row(c, "ceiling").reason.find("; a declared figure: no noise between nights"), std::string::npos)
      << row(c, "ceiling").reason;
  EXPECT_EQ(row(c, "softmax.utilisation").verdict, Change::cannot_tell) << row(c, "softmax.utilisation").reason;
  EXPECT_EQ(row(c, "softmax.utilisation").decided_by, "spread unknown");
}

// `--fail-on-unknown` fails on what could not be told, not on a figure no run
// has (a rig without a power sensor) nor one the scenario ignores.
TEST(Compare, NothingToJudgeIsNotUndecided) {
  Analysis a, b;
  a.metrics = {value("latency_p50", 1.0), Metric::missing(Level::latency, "power_mean", "W", "no power source"),
               value("noisy", 1.0)};
  b.metrics = {value("latency_p50", 1.0), Metric::missing(Level::latency, "power_mean", "W", "no power source"),
               value("noisy", 3.0)};
  CompareConfig config;
  config.ignore.insert("noisy");
  Comparison c = compare_analyses(a, b, config, {}, {}, calibrated(0.01));
  EXPECT_EQ(row(c, "power_mean").verdict, Change::cannot_tell);
  EXPECT_EQ(row(c, "noisy").verdict, Change::cannot_tell);
  EXPECT_EQ(row(c, "latency_p50").verdict, Change::unchanged) << row(c, "latency_p50").reason;
  EXPECT_FALSE(c.undecided());
  c = compare_analyses(a, b, CompareConfig{}, {}, {}, calibrated(0.01));
  EXPECT_EQ(row(c, "noisy").verdict, Change::regressed);
}

TEST(Compare, CategoricalMetricsChangeWithoutADirection) {
  Analysis a, b;
  Metric m = value("gemm.bound", 0, Better::none);
  m.text = "memory";
  a.metrics = {m};
  m.text = "compute";
  b.metrics = {m};
  Comparison c = compare_analyses(a, b, CompareConfig{});
  EXPECT_EQ(c.metrics[0].verdict, Change::changed);
  EXPECT_EQ(c.metrics[0].reason, "memory -> compute");
  EXPECT_FALSE(c.regressed());
}

TEST(Compare, TheWithinRunTestIsShownButCannotDecideAlone) {
  // 50 % slower within two runs: the U test is sure, but two runs cannot
  // show the spread between nights; the reason carries what the samples say.
  Analysis a, b;
  a.samples = {samples("latency", lognormal(400, 1e-3, 0.2, 1))};
  b.samples = {samples("latency", lognormal(400, 1.5e-3, 0.2, 2))};
  a.metrics = {value("latency_p95", 1.39e-3), value("throughput", 900, Better::higher)};
  b.metrics = {value("latency_p95", 2.08e-3), value("throughput", 610, Better::higher)};
  Comparison c = compare_analyses(a, b, CompareConfig{});
  const MetricComparison& set = row(c, "latency");
  EXPECT_EQ(set.kind, "samples");
  EXPECT_EQ(set.verdict, Change::cannot_tell);
  ASSERT_TRUE(set.p_samples);
  EXPECT_LT(*set.p_samples, 1e-20);
  EXPECT_NE(set.reason.find("; within the two runs the U test on 400 vs 400 samples gives p = 2.2e-91 (+50.2 %)"),
            std::string::npos)
      << set.reason;
  const MetricComparison& p95 = row(c, "latency_p95");
  EXPECT_EQ(p95.kind, "from samples");
  EXPECT_EQ(p95.sample_test, "quantile test");
  EXPECT_EQ(p95.threshold, 0.03);
  EXPECT_EQ(row(c, "throughput").kind, "single");
  EXPECT_FALSE(c.regressed());
  // With the rig's calibration the same two runs decide.
  c = compare_analyses(a, b, CompareConfig{}, {}, {}, calibrated(0.03));
  EXPECT_EQ(row(c, "latency").verdict, Change::regressed) << row(c, "latency").reason;
  EXPECT_EQ(row(c, "latency_p95").verdict, Change::regressed);
  EXPECT_EQ(row(c, "throughput").verdict, Change::regressed);
  EXPECT_NE(row(c, "latency").reason.find("; within the two runs: U test p "), std::string::npos);
}

TEST(Compare, EachStatisticOfASampleSetShowsItsOwnTest) {
  Analysis a, b;
  a.samples = {samples("latency", lognormal(300, 1e-3, 0.2, 5))};
  b.samples = {samples("latency", lognormal(300, 1e-3, 0.2, 6))};
  for (Analysis* x : {&a, &b}) {
    x->metrics = {value("latency_p50", 1e-3), value("latency_p99", 1.6e-3), value("latency_mean", 1e-3),
                  value("latency_max", 2e-3), value("latency_p95_over_p50", 1.4)};
  }
  b.metrics[3].value = 3e-3;  // the maximum of one run jumps
  Comparison c = compare_analyses(a, b, CompareConfig{});
  EXPECT_EQ(row(c, "latency_p50").sample_test, "quantile test");
  EXPECT_EQ(row(c, "latency_mean").sample_test, "Welch t test");
  EXPECT_EQ(row(c, "latency").sample_test, "U test");
  // 300 x 0.99 x 0.01 < 5: too few samples in that tail for a quantile test.
  EXPECT_FALSE(row(c, "latency_p99").p_samples);
  EXPECT_FALSE(row(c, "latency_max").p_samples);  // no test of its own
  // With a history, the maximum that jumped from 2 to 3 ms is judged by it.
  std::vector<double> maxima = {2e-3, 2.05e-3, 1.97e-3, 2.02e-3, 2e-3};
  c = compare_analyses(a, b, CompareConfig{}, [&](const std::string& m) {
    return m == "latency_max" ? maxima : std::vector<double>{};
  });
  EXPECT_EQ(row(c, "latency_max").verdict, Change::regressed) << row(c, "latency_max").reason;
  EXPECT_EQ(row(c, "latency_max").history_runs, 5u);
  ASSERT_TRUE(row(c, "latency_max").p_history);
  CompareConfig config;
  config.ignore = {"latency_max"};
  c = compare_analyses(a, b, config);
  EXPECT_EQ(row(c, "latency_max").verdict, Change::cannot_tell);
  EXPECT_EQ(row(c, "latency_max").reason, "ignored: listed in [compare] ignore");
}

TEST(Compare, ATinyButSignificantShiftIsUnchanged) {
  // 1 % slower against a calibration that resolves 1 %: the change is real,
  // and below the 3 % threshold with its whole interval.
  Analysis a, b;
  a.samples = {samples("latency", lognormal(20000, 1e-3, 0.1, 3))};
  b.samples = {samples("latency", lognormal(20000, 1.01e-3, 0.1, 4))};
  Comparison c = compare_analyses(a, b, CompareConfig{}, {}, {}, calibrated(0.002, 40));
  ASSERT_EQ(c.metrics.size(), 1u);
  EXPECT_LT(*c.metrics[0].p_samples, 1e-6);
  EXPECT_LT(*c.metrics[0].p, 0.05);
  EXPECT_EQ(c.metrics[0].verdict, Change::unchanged) << c.metrics[0].reason;
}

TEST(Compare, TheHistoryGivesOneBaselineNightItsSpread) {
  Analysis a, b;
  a.metrics = {value("throughput", 1000, Better::higher)};
  b.metrics = {value("throughput", 850, Better::higher)};  // -15 %
  CompareConfig config;
  // This rig's throughput wanders by ~8 % from night to night: it could not see 15 %.
  std::vector<double> wobbly = {1000, 880, 1090, 920, 1010, 870, 1100, 950};
  Comparison c = compare_analyses(a, b, config, [&](const std::string&) { return wobbly; });
  EXPECT_EQ(c.metrics[0].verdict, Change::cannot_tell);
  EXPECT_EQ(c.metrics[0].decided_by, "spread");
  EXPECT_EQ(c.metrics[0].history_runs, 8u);
  EXPECT_NE(c.metrics[0].reason.find("spread too wide for the ±10 % threshold: would detect ≥"), std::string::npos)
      << c.metrics[0].reason;
  // On a quiet rig the same drop is far outside it.
  std::vector<double> quiet = {1000, 1004, 998, 1001, 997, 1003};
  c = compare_analyses(a, b, config, [&](const std::string&) { return quiet; });
  EXPECT_EQ(c.metrics[0].verdict, Change::regressed);
  EXPECT_LT(*c.metrics[0].p_adjusted, 1e-6);
  EXPECT_EQ(c.metrics[0].basis, "1 baseline night, the spread of the history of 6 earlier runs");
}

TEST(Compare, TheCorrectionCoversEveryJudgedMetric) {
  // 20 metrics, each 24 % lower with a p of about 0.04 on its own: without a
  // correction all 20 are called improved; Holm over the family calls none,
  // and says why: beyond the threshold but not significant.
  Analysis a, b;
  for (int i = 0; i < 20; ++i) {
    const std::string name = fmt::format("m{}", i);
    a.metrics.push_back(value(name, 100));
    b.metrics.push_back(value(name, 76));
  }
  auto history = [&](const std::string&) { return std::vector<double>{100, 110, 95, 104, 90, 101}; };
  CompareConfig none;
  none.method = Correction::none;
  Comparison n = compare_analyses(a, b, none, history);
  ASSERT_LT(*n.metrics[0].p, 0.05);
  ASSERT_GT(*n.metrics[0].p, 0.05 / 20);
  EXPECT_EQ(n.count(Change::improved), 20u);
  Comparison h = compare_analyses(a, b, CompareConfig{}, history);
  EXPECT_EQ(h.tests, 20u);
  EXPECT_EQ(h.count(Change::cannot_tell), 20u);
  EXPECT_NE(h.metrics[0].reason.find("-24.0 % [-40.5 %, -3.0 %] at 95 %, p = 0.0341 (adjusted = 0.6820)"),
            std::string::npos)
      << h.metrics[0].reason;
  CompareConfig bh;
  bh.method = Correction::bh;
  // Equal p-values: BH keeps each at p * 20 / 20, so all 20 are discoveries.
  EXPECT_EQ(compare_analyses(a, b, bh, history).count(Change::improved), 20u);
}

// Runs whose within-run samples are tight but whose medians move from run to
// run, as identical runs on a real machine do.
Analysis night(double median, std::uint64_t seed) {
  Analysis a;
  a.samples.push_back(samples("latency", lognormal(400, median, 0.02, seed)));
  a.metrics.push_back(value("latency_p50", median));
  a.metrics.push_back(value("ceiling", 100 * 1e-3 / median, Better::higher));  // a rate: falls as the time grows
  return a;
}

TEST(Compare, ABaselineSetHoldsAChangeAgainstTheSpreadBetweenItsRuns) {
  // Five baseline nights spread by about +-7 % between runs.
  const double medians[] = {1.00e-3, 1.12e-3, 0.93e-3, 1.05e-3, 0.97e-3};
  std::vector<Analysis> nights;
  for (int i = 0; i < 5; ++i) nights.push_back(night(medians[i], 10 + static_cast<std::uint64_t>(i)));
  const std::vector<const Analysis*> set = members(nights);
  const Analysis& newest = nights.back();

  // An identical run 12 % above the newest night: such nights cannot resolve
  // the 3 % threshold, so it is neither a regression nor unchanged.
  Comparison c = compare_analyses(newest, night(1.09e-3, 99), CompareConfig{}, {}, set);
  const MetricComparison& r = row(c, "latency");
  EXPECT_EQ(r.verdict, Change::cannot_tell) << r.reason;
  EXPECT_EQ(r.decided_by, "spread");
  EXPECT_EQ(r.between_runs, 5u);
  ASSERT_TRUE(r.p_between);
  EXPECT_GT(*r.p_between, 0.05);
  EXPECT_EQ(r.basis, "5 baseline nights' spread");
  // A workload made 60 % slower is beyond what identical runs show.
  c = compare_analyses(newest, night(1.6e-3, 98), CompareConfig{}, {}, set);
  EXPECT_EQ(row(c, "latency").verdict, Change::regressed) << row(c, "latency").reason;
  EXPECT_EQ(row(c, "latency_p50").verdict, Change::regressed);
  EXPECT_EQ(row(c, "ceiling").verdict, Change::regressed);  // higher is better, and it fell
}

TEST(Compare, ANightOneAndAHalfTimesSlowerIsNeverUnchanged) {
  // The case: a baseline of five nights and a night 1.5x slower.
  // Bimodal nights (279-535 us) cannot resolve it: cannot tell, with why;
  // nights that agree call it regressed.
  auto single = [](double p50) {
    Analysis a;
    a.metrics.push_back(value("latency_p50", p50));
    return a;
  };
  for (const std::vector<double>& medians :
       {std::vector<double>{279e-6, 535e-6, 300e-6, 520e-6, 290e-6}, std::vector<double>{485e-6, 470e-6, 501e-6,
                                                                                          492e-6, 479e-6}}) {
    std::vector<Analysis> nights;
    for (double m : medians) nights.push_back(single(m));
    Comparison c = compare_analyses(nights.back(), single(741e-6), CompareConfig{}, {}, members(nights));
    const MetricComparison& r = row(c, "latency_p50");
    EXPECT_NE(r.verdict, Change::unchanged) << r.reason;
    if (medians[0] < 300e-6) {
      EXPECT_EQ(r.verdict, Change::cannot_tell);
      EXPECT_NE(r.reason.find("spread too wide"), std::string::npos) << r.reason;
    } else {
      EXPECT_EQ(r.verdict, Change::regressed) << r.reason;
    }
  }
}

TEST(Compare, ABaselineSetTooSmallToShowItsSpreadCannotTell) {
  Analysis a = night(1e-3, 1), b = night(1.01e-3, 2);
  std::vector<const Analysis*> set = {&a, &b};
  Comparison c = compare_analyses(b, night(2e-3, 3), CompareConfig{}, {}, set);
  const MetricComparison& r = row(c, "ceiling");
  EXPECT_EQ(r.verdict, Change::cannot_tell);
  EXPECT_EQ(r.reason,
            "the baseline's 2 runs with this metric cannot show how far nights spread (needs 3), and the rig has no "
            "calibration for it");
  EXPECT_EQ(row(c, "latency").reason.rfind("the baseline's 2 runs with this metric cannot show how far nights spread "
                                            "(needs 3), and the rig has no calibration for it; within the two runs the "
                                            "U test on 400 vs 400 samples gives p ", 0),
            0u);
  EXPECT_EQ(r.decided_by, "spread unknown");
  EXPECT_EQ(row(c, "latency").verdict, Change::cannot_tell);
  EXPECT_FALSE(c.regressed());
  // The rig's calibration pools with the two nights.
  c = compare_analyses(b, night(2e-3, 3), CompareConfig{}, {}, set, calibrated(0.03));
  EXPECT_EQ(row(c, "latency_p50").verdict, Change::regressed);
  EXPECT_EQ(row(c, "latency_p50").basis, "2 baseline nights, the spread of calibration (20 nights)");
}

TEST(Compare, ACountOfEventsIsJudgedAgainstAtLeastItsPoissonSpread) {
  // Seen on real runs of scenarios/host.toml: five baseline nights that each
  // counted 2 context switches, then a night with 1. The runs show no spread
  // at all, yet a count of 2 moves by about sqrt(2) on its own.
  auto counted = [](double switches, double seconds) {
    Analysis a;
    Metric m = value("counter.CONTEXT_SWITCHES", switches);
    m.unit = std::string("events");
    a.metrics.push_back(m);
    a.metrics.push_back(value("counter.TASK_CLOCK", seconds));  // a time: no floor
    return a;
  };
  std::vector<Analysis> nights;
  for (int i = 0; i < 5; ++i) nights.push_back(counted(2, 4.4e-3));
  const std::vector<const Analysis*> set = members(nights);
  Comparison c = compare_analyses(nights.back(), counted(1, 4.4e-3), CompareConfig{}, {}, set);
  const MetricComparison& r = row(c, "counter.CONTEXT_SWITCHES");
  EXPECT_EQ(r.verdict, Change::cannot_tell) << r.reason;  // a count of 2 cannot resolve 10 %
  EXPECT_TRUE(r.counting_floor);
  EXPECT_NE(r.reason.find("(raised to a count's Poisson spread)"), std::string::npos) << r.reason;
  EXPECT_FALSE(c.regressed());

  // Twenty more events than two is far beyond a count's noise.
  c = compare_analyses(nights.back(), counted(22, 4.4e-3), CompareConfig{}, {}, set);
  EXPECT_EQ(row(c, "counter.CONTEXT_SWITCHES").verdict, Change::regressed) << row(c, "counter.CONTEXT_SWITCHES").reason;
  // A time with no spread between the runs keeps no floor: any change is beyond it.
  c = compare_analyses(nights.back(), counted(2, 6e-3), CompareConfig{}, {}, set);
  EXPECT_EQ(row(c, "counter.TASK_CLOCK").verdict, Change::regressed);
  EXPECT_FALSE(row(c, "counter.TASK_CLOCK").counting_floor);
}

TEST(Compare, AChangeOfIterationsMustHoldThroughoutTheNewRun) {
  // Level 4's iterations in the order they ran: a stretch of the host being
  // disturbed is not a change of the workload (persistence.h).
  auto run = [](std::vector<double> latency) {
    Analysis a;
    std::vector<double> sorted = latency;
    std::sort(sorted.begin(), sorted.end());
    a.metrics.push_back(value("latency_p50", percentile_sorted(sorted, 50)));
    a.metrics.push_back(value("latency_p90", percentile_sorted(sorted, 90)));
    a.samples.push_back(samples("latency", std::move(latency)));
    return a;
  };
  auto iterations = [](double median, std::uint64_t seed, double slow_from = 2, double factor = 1) {
    std::vector<double> v = lognormal(4000, median, 0.02, seed);
    for (std::size_t i = static_cast<std::size_t>(slow_from * 4000); i < v.size(); ++i) v[i] *= factor;
    return v;
  };
  const Analysis base = run(iterations(226e-6, 1));
  const CalibrationLookup quiet = calibrated(0.005);
  // The first 40 % at the baseline's speed, the rest 70 % slower: each run's
  // best stretch is unchanged, the whole run is not.
  Comparison c = compare_analyses(base, run(iterations(226e-6, 2, 0.4, 1.7)), CompareConfig{}, {}, {}, quiet);
  const MetricComparison& p50 = row(c, "latency_p50");
  EXPECT_EQ(p50.verdict, Change::cannot_tell) << p50.reason;
  EXPECT_EQ(p50.decided_by, "persistence");
  EXPECT_TRUE(p50.between_undisturbed);
  EXPECT_NE(p50.reason.find("but the whole run moved +"), std::string::npos) << p50.reason;
  EXPECT_EQ(row(c, "latency").verdict, Change::cannot_tell);
  EXPECT_FALSE(c.regressed());

  // A workload 20 % slower in every iteration regresses, every stretch showing it.
  c = compare_analyses(base, run(iterations(271e-6, 3)), CompareConfig{}, {}, {}, quiet);
  EXPECT_EQ(row(c, "latency_p50").verdict, Change::regressed) << row(c, "latency_p50").reason;
  EXPECT_EQ(row(c, "latency_p50").stretches_showing, kPersistenceStretches);
  EXPECT_EQ(row(c, "latency_p90").verdict, Change::regressed);
  EXPECT_EQ(row(c, "latency").verdict, Change::regressed);

  // Sample sets that are not iterations in order keep their verdict unchecked.
  Analysis other_base, other_new;
  other_base.samples.push_back(samples("ddr.read_interval", iterations(10e-9, 4)));
  other_new.samples.push_back(samples("ddr.read_interval", iterations(10e-9, 5, 0.4, 1.7)));
  other_base.samples.back().level = other_new.samples.back().level = Level::ddr;
  c = compare_analyses(other_base, other_new, CompareConfig{}, {}, {}, quiet);
  EXPECT_EQ(row(c, "ddr.read_interval").verdict, Change::regressed) << row(c, "ddr.read_interval").reason;
  EXPECT_EQ(row(c, "ddr.read_interval").stretches, 0u);
}

TEST(Compare, ABaselineNightDisturbedForAWhileDoesNotWidenTheSpread) {
  // Five baseline nights of iterations in order; the third ran its last 40 %
  // 25 % slower (a neighbour on a shared host), which lifts its p90 by about
  // as much as the change to be found. Each run's best of its five stretches
  // is what the spread is taken of, so the workload made 20 % slower stands out.
  auto run = [](double median, std::uint64_t seed, double slow_from = 2, double factor = 1) {
    std::vector<double> v = lognormal(4000, median, 0.02, seed);
    for (std::size_t i = static_cast<std::size_t>(slow_from * 4000); i < v.size(); ++i) v[i] *= factor;
    Analysis a;
    std::vector<double> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    a.metrics.push_back(value("latency_p90", percentile_sorted(sorted, 90)));
    a.metrics.push_back(value("latency_max", sorted.back()));
    a.samples.push_back(samples("latency", std::move(v)));
    return a;
  };
  std::vector<Analysis> nights;
  for (std::uint64_t i = 0; i < 5; ++i) nights.push_back(i == 2 ? run(226e-6, 20 + i, 0.6, 1.25) : run(226e-6, 20 + i));
  ASSERT_GT(*nights[2].metrics[0].value, 1.2 * *nights[0].metrics[0].value);
  const std::vector<const Analysis*> set = members(nights);
  Comparison c = compare_analyses(nights.back(), run(271e-6, 30), CompareConfig{}, {}, set);
  const MetricComparison& p90 = row(c, "latency_p90");
  EXPECT_EQ(p90.verdict, Change::regressed) << p90.reason;
  EXPECT_TRUE(p90.between_undisturbed);
  EXPECT_NE(p90.reason.find("(each run's best of its 5 stretches)"), std::string::npos) << p90.reason;
  // An identical night is unchanged, with what the nights could have seen.
  c = compare_analyses(nights.back(), run(226e-6, 31), CompareConfig{}, {}, set);
  EXPECT_EQ(row(c, "latency_p90").verdict, Change::unchanged) << row(c, "latency_p90").reason;
  EXPECT_LT(*row(c, "latency_p90").detectable, 0.03);
  // A night whose last fifth ran 70 % slower: its maximum is far beyond the
  // threshold while its best stretch's is not: part of the night was
  // disturbed, and that is no "unchanged".
  c = compare_analyses(nights.back(), run(226e-6, 32, 0.8, 1.7), CompareConfig{}, {}, set);
  const MetricComparison& max = row(c, "latency_max");
  EXPECT_GT(*max.relative_change, 0.5);
  EXPECT_EQ(max.verdict, Change::cannot_tell) << max.reason;
  EXPECT_TRUE(max.between_undisturbed);
  EXPECT_EQ(max.decided_by, "persistence");
}

TEST(Compare, ACounterReadInWindowsIsJudgedByItsBestStretchBetweenRuns) {
  // Level 2 read in 10 windows (harness/levels/counters.h): each window's
  // task clock scaled to the run. A night whose last four windows ran 60 %
  // slower (a neighbour taking the core's caches) is not a change of the
  // workload; one 20 % slower in every window is.
  auto night = [](double seconds, std::uint64_t seed, std::size_t slow_from = 10, double factor = 1,
                  double switches = 3) {
    std::vector<double> windows = lognormal(10, seconds, 0.005, seed);
    for (std::size_t k = slow_from; k < windows.size(); ++k) windows[k] *= factor;
    Analysis a;
    Metric clock = value("counter.TASK_CLOCK", mean(windows));
    clock.level = Level::counters;
    a.metrics.push_back(clock);
    a.samples.push_back({Level::counters, "counter.TASK_CLOCK", "s", Provenance::measured, "test", Better::lower,
                         windows});
    // A few context switches, each one window's count x 10.
    std::vector<double> counted(10, 0.0);
    for (std::size_t k = 0; k < static_cast<std::size_t>(switches); ++k) counted[(seed + 3 * k) % 10] += 10;
    Metric m = value("counter.CONTEXT_SWITCHES", switches);
    m.level = Level::counters;
    m.unit = std::string("events");
    a.metrics.push_back(m);
    a.samples.push_back({Level::counters, "counter.CONTEXT_SWITCHES", "events", Provenance::measured, "test",
                         Better::lower, counted});
    return a;
  };
  std::vector<Analysis> nights;
  for (std::uint64_t i = 0; i < 5; ++i) nights.push_back(night(44.6e-3, 40 + i));
  const std::vector<const Analysis*> set = members(nights);

  // Disturbed for four windows: neither a regression nor "unchanged".
  Comparison c = compare_analyses(nights.back(), night(44.6e-3, 50, 6, 1.6), CompareConfig{}, {}, set);
  const MetricComparison& disturbed = row(c, "counter.TASK_CLOCK");
  EXPECT_GT(*disturbed.relative_change, 0.2);
  EXPECT_EQ(disturbed.verdict, Change::cannot_tell) << disturbed.reason;
  EXPECT_EQ(disturbed.decided_by, "persistence");
  EXPECT_TRUE(disturbed.between_undisturbed);

  c = compare_analyses(nights.back(), night(53.5e-3, 51), CompareConfig{}, {}, set);
  EXPECT_EQ(row(c, "counter.TASK_CLOCK").verdict, Change::regressed) << row(c, "counter.TASK_CLOCK").reason;

  // A count of events is judged on the whole run against its Poisson floor:
  // a best stretch of two windows would keep one event in five. Ten context
  // switches in every window where the nights counted three in all.
  c = compare_analyses(nights.back(), night(44.6e-3, 52, 10, 1, 100), CompareConfig{}, {}, set);
  const MetricComparison& switches = row(c, "counter.CONTEXT_SWITCHES");
  EXPECT_FALSE(switches.between_undisturbed);
  EXPECT_TRUE(switches.counting_floor);
  EXPECT_EQ(switches.verdict, Change::regressed) << switches.reason;
}

TEST(Compare, AnUnstableRigMakesItsLevelCannotTell) {
  Analysis a, b;
  a.metrics = {value("latency_p50", 1.0)};
  b.metrics = {value("latency_p50", 1.5)};
  Metric stability = value("stability.latency", 0, Better::none);
  stability.text = "unstable: cpu0 2.1→1.2 GHz";
  b.metrics.push_back(stability);
  stability.text = "stable";
  a.metrics.push_back(stability);
  Comparison c = compare_analyses(a, b, CompareConfig{}, {}, {}, calibrated(0.01));
  ASSERT_EQ(c.metrics.size(), 1u);  // the rig's reading itself is no row
  EXPECT_EQ(c.metrics[0].verdict, Change::cannot_tell);
  EXPECT_EQ(c.metrics[0].decided_by, "stability");
  EXPECT_EQ(c.metrics[0].reason, "rig unstable: cpu0 2.1→1.2 GHz in the new run");
}

// A run with a same-run reference: per-round ratios candidate / reference.
Analysis paired_run(double factor, double sigma, std::size_t rounds, std::uint64_t seed) {
  Analysis a;
  std::vector<double> ratios = lognormal(rounds, factor, sigma, seed);
  a.metrics.push_back(value("latency_p50", 300e-6 * factor));
  a.metrics.push_back(value("reference.latency_p50", 300e-6));
  a.samples.push_back({Level::latency, "vs_reference.latency_p50", "1", Provenance::measured, "test", Better::lower,
                       ratios});
  return a;
}

TEST(CompareReference, APairedRunIsJudgedOnItsOwn) {
  const CompareConfig config;
  Comparison c = judge_against_reference(paired_run(1.0, 0.02, 20, 1), config);
  ASSERT_EQ(c.metrics.size(), 1u);
  const MetricComparison& aa = c.metrics[0];
  EXPECT_EQ(aa.name, "latency_p50");
  EXPECT_EQ(aa.kind, "paired");
  EXPECT_EQ(aa.rounds, 20u);
  EXPECT_EQ(aa.verdict, Change::unchanged) << aa.reason;
  EXPECT_NE(aa.reason.find("inside the ±5 % threshold; would detect ≥"), std::string::npos) << aa.reason;
  EXPECT_NE(aa.reason.find("; 20 paired rounds; signed-rank p = "), std::string::npos) << aa.reason;
  EXPECT_EQ(c.against, "reference");

  c = judge_against_reference(paired_run(1.10, 0.02, 20, 2), config);
  EXPECT_EQ(c.metrics[0].verdict, Change::regressed) << c.metrics[0].reason;
  EXPECT_NEAR(*c.metrics[0].effect, 0.10, 0.02);
  EXPECT_TRUE(c.regressed());
  std::vector<Verdict> verdicts = reference_verdicts(c);
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_EQ(verdicts[0].check, "reference.latency_p50");
  EXPECT_EQ(verdicts[0].status, VerdictStatus::fail);
  EXPECT_EQ(verdicts[0].expected, "within ±5 % of the reference");

  // Too few rounds, or a spread the rounds cannot resolve: cannot tell.
  c = judge_against_reference(paired_run(1.0, 0.02, 3, 3), config);
  EXPECT_EQ(c.metrics[0].verdict, Change::cannot_tell);
  EXPECT_EQ(c.metrics[0].reason, "too few rounds: 3 (a paired verdict needs 5)");
  c = judge_against_reference(paired_run(1.0, 0.2, 8, 4), config);
  EXPECT_EQ(c.metrics[0].verdict, Change::cannot_tell);
  EXPECT_EQ(c.metrics[0].decided_by, "spread");
  EXPECT_EQ(reference_verdicts(c)[0].status, VerdictStatus::cannot_tell);
  // A run without a reference has nothing to judge so.
  EXPECT_TRUE(judge_against_reference(Analysis{}, config).metrics.empty());
}

// Level 1's kernels give ratios of achieved op/s, higher better: a kernel
// 10 % slower than its reference is a ratio of 1/1.1, regressed.
TEST(CompareReference, AKernelSlowerThanItsReferenceIsRegressedByItsAchievedRatio) {
  Analysis a;
  a.metrics.push_back(value("g.achieved", 1e9 / 1.1, Better::higher));
  a.metrics.push_back(value("reference.g.achieved", 1e9, Better::higher));
  a.samples.push_back({Level::roofline, "vs_reference.g.achieved", "1", Provenance::measured, "test", Better::higher,
                       lognormal(20, 1 / 1.1, 0.02, 6)});
  Comparison c = judge_against_reference(a, CompareConfig{});
  ASSERT_EQ(c.metrics.size(), 1u);
  EXPECT_EQ(c.metrics[0].name, "g.achieved");
  EXPECT_EQ(c.metrics[0].level, Level::roofline);
  EXPECT_EQ(c.metrics[0].verdict, Change::regressed) << c.metrics[0].reason;
  a.samples[0].values = lognormal(20, 1.1, 0.02, 7);
  EXPECT_EQ(judge_against_reference(a, CompareConfig{}).metrics[0].verdict, Change::improved);
}

// On an unstable rig a paired change stands only where it shows in every
// stretch of the rounds in the order they ran: a change of the candidate is in
// every round, a disturbance that fell on one side's blocks comes and goes.
// Otherwise it is cannot tell, saying what the rounds read; an unchanged
// stands on the rounds' spread (the reference ran under the same
// disturbance), with the rig's state said beside.
TEST(CompareReference, MoreLooksSplitAlphaAndAnUnstableRigFlagsOnlyAChangeInEveryStretch) {
  CompareConfig config;
  config.looks = 3;
  Comparison c = judge_against_reference(paired_run(1.10, 0.02, 20, 2), config);
  EXPECT_EQ(c.metrics[0].verdict, Change::regressed);
  EXPECT_NE(c.metrics[0].reason.find("; alpha split over 3 looks"), std::string::npos);
  Metric s = value("stability.latency", 0, Better::none);
  s.text = "unstable: canary +23 %";

  Analysis unstable = paired_run(1.10, 0.02, 20, 2);
  unstable.metrics.push_back(s);
  c = judge_against_reference(unstable, config);
  EXPECT_EQ(c.metrics[0].verdict, Change::regressed) << c.metrics[0].reason;
  EXPECT_EQ(c.metrics[0].stretches, 5u);
  EXPECT_EQ(c.metrics[0].stretches_showing, 5u);
  EXPECT_THAT(c.metrics[0].reason, testing::EndsWith("; alpha split over 3 looks; rig unstable (stability.latency says "
                                                     "how), but the change shows in each of the 5 stretches of rounds "
                                                     "in the order they ran"));
  EXPECT_TRUE(c.regressed());

  // The first half of the rounds as the reference, the second 25 % slower:
  // regressed on a steady rig, cannot tell on an unstable one.
  Analysis half = paired_run(1.0, 0.01, 20, 3);
  for (std::size_t i = 10; i < 20; ++i) half.samples[0].values[i] *= 1.25;
  EXPECT_EQ(judge_against_reference(half, config).metrics[0].verdict, Change::regressed);
  half.metrics.push_back(s);
  c = judge_against_reference(half, config);
  EXPECT_EQ(c.metrics[0].verdict, Change::cannot_tell);
  EXPECT_EQ(c.metrics[0].decided_by, "stability");
  EXPECT_EQ(c.metrics[0].stretches_showing, 3u);
  EXPECT_THAT(c.metrics[0].reason, testing::StartsWith("rig unstable: canary +23 % (stability.latency): the rounds "
                                                       "read regressed ("));
  EXPECT_THAT(c.metrics[0].reason, testing::EndsWith("), but only 3 of their 5 stretches in the order they ran show it"));
  EXPECT_FALSE(c.regressed());

  // Too few rounds to cut into five stretches of three.
  Analysis short_run = paired_run(1.10, 0.02, 12, 4);
  short_run.metrics.push_back(s);
  c = judge_against_reference(short_run, config);
  EXPECT_EQ(c.metrics[0].verdict, Change::cannot_tell);
  EXPECT_THAT(c.metrics[0].reason,
              testing::EndsWith("and 12 rounds are too few to see whether it shows in each of 5 stretches of 3"));

  Analysis same = paired_run(1.0, 0.02, 20, 2);
  same.metrics.push_back(s);
  c = judge_against_reference(same, config);
  EXPECT_EQ(c.metrics[0].verdict, Change::unchanged) << c.metrics[0].reason;
  EXPECT_EQ(c.metrics[0].reason.substr(c.metrics[0].reason.find("; alpha split")),
            "; alpha split over 3 looks; rig unstable (stability.latency says how), shared by both sides");
}

// With a round far from the others the judgement reads the signed-rank p;
// the family it is adjusted in must hold that p too, not the t test's (which
// the far round inflates): two metrics, so Holm doubles the smaller p.
TEST(CompareReference, TheFamilyHoldsThePTheJudgementReads) {
  Analysis a = paired_run(1.08, 0.01, 20, 5);
  a.samples[0].values[3] = 0.2;   // two stalled reference blocks: t's p is
  a.samples[0].values[11] = 9.0;  // large, the ranks hardly move
  SampleSet mean = a.samples[0];
  mean.name = "vs_reference.latency_mean";
  a.samples.push_back(mean);
  Comparison c = judge_against_reference(a, CompareConfig{});
  ASSERT_EQ(c.metrics.size(), 2u);
  const MetricComparison& m = c.metrics[0];
  ASSERT_TRUE(m.p && m.p_wilcoxon && m.p_paired && m.p_adjusted);
  EXPECT_GT(*m.p_paired, 0.05);
  EXPECT_EQ(*m.p, *m.p_wilcoxon);
  EXPECT_DOUBLE_EQ(*m.p_adjusted, 2 * *m.p_wilcoxon);
  EXPECT_EQ(m.verdict, Change::regressed) << m.reason;
}

}  // namespace
}  // namespace harness
