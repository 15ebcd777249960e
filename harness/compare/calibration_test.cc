// A calibration from A/A nights: the spread between nights of what compare
// judges a night by, what it lets one baseline night detect, the paired
// rounds' spread, and the false alarms the nights raise among themselves.
#include "harness/compare/calibration.h"

#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "harness/base/stats.h"

namespace harness {
namespace {

RunRecord night(std::int64_t id, double p50, std::vector<double> ratios = {}) {
  RunRecord r;
  r.id = id;
  r.scenario_name = "s";
  r.rig = "r1";
  r.analysis.metrics.push_back(
      Metric::known(Level::latency, "latency_p50", p50, "s", Provenance::measured, "test", Better::lower));
  if (!ratios.empty()) {
    r.analysis.samples.push_back({Level::latency, "vs_reference.latency_p50", "1", Provenance::measured, "test",
                                  Better::lower, std::move(ratios)});
  }
  return r;
}

TEST(Calibration, TheSpreadBetweenNightsAndWhatOneNightCouldDetect) {
  // numpy.std(numpy.log(p50), ddof=1) = 0.028710...
  const std::vector<double> p50 = {1.00e-3, 1.05e-3, 0.97e-3, 1.02e-3, 0.99e-3, 1.03e-3};
  std::vector<RunRecord> nights;
  for (std::size_t i = 0; i < p50.size(); ++i) nights.push_back(night(static_cast<std::int64_t>(i + 1), p50[i]));
  Calibration c = calibrate_nights(nights, CompareConfig{});
  EXPECT_EQ(c.runs, (std::vector<std::int64_t>{1, 2, 3, 4, 5, 6}));
  ASSERT_EQ(c.metrics.size(), 1u);
  const CalibratedMetric& m = c.metrics[0];
  std::vector<double> logs;
  for (double v : p50) logs.push_back(std::log(v));
  EXPECT_NEAR(m.sd, stddev(logs), 1e-12);
  EXPECT_NEAR(m.sd, 0.028710, 1e-5);
  EXPECT_EQ(m.scale, "log");
  EXPECT_DOUBLE_EQ(m.df, 5);
  // One night against one night with this spread: (t(0.975, 5) + t(0.8, 5)) x sd x sqrt(2).
  ASSERT_TRUE(m.detectable);
  EXPECT_NEAR(std::log1p(*m.detectable), (2.570582 + 0.919544) * m.sd * std::sqrt(2.0), 1e-5);
  // Nights 4-6 each judged against the three before them: identical nights, no false alarm.
  EXPECT_EQ(c.comparisons, 3);
  EXPECT_EQ(c.false_alarms, 0);
  const CalibrationLookup lookup = calibration_lookup(c);
  ASSERT_TRUE(lookup("latency_p50"));
  EXPECT_FALSE(lookup("latency_p90"));
}

TEST(Calibration, PairedRoundsAndTheirFalseAlarms) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> noise(0, 0.02);
  std::vector<RunRecord> nights;
  for (int i = 0; i < 5; ++i) {
    std::vector<double> ratios(20);
    for (double& r : ratios) r = std::exp(noise(rng));
    nights.push_back(night(i + 1, 1e-3, ratios));
  }
  // One night whose rounds say 20 % slower: an A/A night that cries wolf.
  nights[2].analysis.samples[0].values.assign(20, 1.2);
  for (std::size_t k = 0; k < 20; ++k) nights[2].analysis.samples[0].values[k] *= std::exp(noise(rng));
  Calibration c = calibrate_nights(nights, CompareConfig{});
  const CalibratedMetric* m = c.find("latency_p50");
  ASSERT_TRUE(m);
  ASSERT_TRUE(m->paired_sd);
  EXPECT_NEAR(*m->paired_sd, 0.02, 0.006);
  EXPECT_EQ(m->paired_rounds, 20);
  ASSERT_TRUE(m->paired_detectable);
  EXPECT_LT(*m->paired_detectable, 0.03);
  EXPECT_EQ(m->false_alarms, 1);
  EXPECT_EQ(c.false_alarms, 1);
  EXPECT_EQ(c.comparisons, 5 + 2);  // each night against its reference, nights 4-5 against the 3 before
  CompareConfig config;
  EXPECT_NE(calibration_summary(c, config).find("1 of 7 comparisons with a false alarm; detects ≥ "),
            std::string::npos)
      << calibration_summary(c, config);
}

}  // namespace
}  // namespace harness
