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

}  // namespace
}  // namespace harness
