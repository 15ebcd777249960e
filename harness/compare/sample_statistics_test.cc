#include "harness/compare/sample_statistics.h"

#include <algorithm>
#include <cmath>
#include <random>

#include <gtest/gtest.h>

namespace harness {
namespace {

std::vector<double> sorted_lognormal(std::size_t n, double median, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> d(std::log(median), 0.2);
  std::vector<double> v(n);
  for (double& x : v) x = d(rng);
  std::sort(v.begin(), v.end());
  return v;
}

TEST(QuantileTest, FalseAlarmsNearAlphaAndShiftsFound) {
  // Calibration: identical distributions give p < 0.05 about 5 % of the time.
  int alarms = 0, found = 0;
  for (std::uint64_t s = 0; s < 400; ++s) {
    auto a = sorted_lognormal(500, 1.0, 2 * s), b = sorted_lognormal(500, 1.0, 2 * s + 1);
    alarms += *quantile_difference_p(a, b, 0.95) < 0.05;
    auto c = sorted_lognormal(500, 1.15, 5000 + s);
    found += *quantile_difference_p(a, c, 0.95) < 0.05;
  }
  EXPECT_GE(alarms, 4);   // not absurdly conservative
  EXPECT_LE(alarms, 40);  // 10 % at most
  EXPECT_GE(found, 360);  // a 15 % shift of p95 with 500 samples: found 90 %+
}

TEST(QuantileTest, NeedsSamplesInTheTail) {
  auto a = sorted_lognormal(300, 1.0, 1), b = sorted_lognormal(300, 1.0, 2);
  EXPECT_FALSE(quantile_difference_p(a, b, 0.99));
  EXPECT_TRUE(quantile_difference_p(a, b, 0.95));
}

TEST(WelchT, TooFewValues) { EXPECT_FALSE(welch_t_p(std::vector<double>{1}, std::vector<double>{1, 2})); }

TEST(SampleStatistics, StatisticsByTheNamesMetricsGiveThem) {
  EXPECT_EQ(percentile_of_statistic("median"), 50.0);
  EXPECT_EQ(percentile_of_statistic("p95"), 95.0);
  EXPECT_EQ(percentile_of_statistic("p99.9"), 99.9);
  EXPECT_FALSE(percentile_of_statistic("p9.9.9"));
  EXPECT_FALSE(percentile_of_statistic("mean"));
  const std::vector<double> sorted = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_DOUBLE_EQ(*statistic_of_sorted(sorted, "median"), 5.5);
  EXPECT_DOUBLE_EQ(*statistic_of_sorted(sorted, "p50"), 5.5);
  EXPECT_DOUBLE_EQ(*statistic_of_sorted(sorted, "p90"), 9.1);
  EXPECT_DOUBLE_EQ(*statistic_of_sorted(sorted, "p99.9"), 9.991);
  EXPECT_DOUBLE_EQ(*statistic_of_sorted(sorted, "mean"), 5.5);
  EXPECT_DOUBLE_EQ(*statistic_of_sorted(sorted, "max"), 10);
  EXPECT_DOUBLE_EQ(*statistic_of_sorted(sorted, "min"), 1);
  EXPECT_NEAR(*statistic_of_sorted(sorted, "stddev"), 3.0277, 1e-4);
  EXPECT_DOUBLE_EQ(*statistic_of_sorted(sorted, "p90_over_p50"), 9.1 / 5.5);
  for (const char* bad : {"", "p", "p100", "p0", "p5x", "p50_over_", "_over_p50", "p50_ci_low", "throughput"})
    EXPECT_FALSE(statistic_of_sorted(sorted, bad)) << bad;
  EXPECT_FALSE(statistic_of_sorted(std::vector<double>{}, "max"));
}

}  // namespace
}  // namespace harness
