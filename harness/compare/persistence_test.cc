#include "harness/compare/persistence.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "harness/base/stats.h"
#include "harness/compare/sample_statistics.h"

namespace harness {
namespace {

// Iteration latencies around `median` (+-2 %), in the order they ran; the
// iterations in [from, to) (fractions of the run) take `factor` times as long.
std::vector<double> iterations(std::size_t n, double median, double from = 0, double to = 0, double factor = 1,
                               std::uint64_t seed = 1) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> d(std::log(median), 0.02);
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double at = static_cast<double>(i) / static_cast<double>(n);
    v[i] = d(rng) * (at >= from && at < to ? factor : 1.0);
  }
  return v;
}

TEST(Persistence, AChangeOfTheWorkloadShowsInEveryStretch) {
  // Every iteration 20 % slower: each fifth of the run is 20 % above.
  std::vector<double> slower = iterations(4000, 270e-6);
  std::optional<Persistence> p = persistence(slower, 0.5, 225e-6, 270e-6, 0.15, 10);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->stretches, kPersistenceStretches);
  EXPECT_EQ(p->showing, kPersistenceStretches);
  EXPECT_TRUE(p->holds());
  // The same for the mean, and for a faster run on the other side.
  EXPECT_TRUE(persistence(slower, std::nullopt, 225e-6, 270e-6, 0.15, 10)->holds());
  EXPECT_TRUE(persistence(iterations(4000, 180e-6), 0.9, 225e-6, 185e-6, 0.15, 10)->holds());
}

TEST(Persistence, ADisturbanceThatComesAndGoesDoesNot) {
  // As on a shared VM: the first 40 % of the condition at the baseline's
  // speed, the rest 70 % slower; the run's median lands in the slow part.
  std::vector<double> v = iterations(4000, 226e-6, 0.4, 1.0, 1.7);
  std::vector<double> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  std::optional<Persistence> p = persistence(v, 0.5, 226e-6, percentile_sorted(sorted, 50), 0.15, 10);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->showing, 3u);
  EXPECT_FALSE(p->holds());
  // Two short stretches of slow iterations lift the p90 of the whole run, not of each fifth.
  std::vector<double> w = iterations(4000, 222e-6, 0.2, 0.28, 1.6, 2);
  for (std::size_t i = 2400; i < 2700; ++i) w[i] *= 1.6;
  sorted = w;
  std::sort(sorted.begin(), sorted.end());
  p = persistence(w, 0.9, 226e-6, percentile_sorted(sorted, 90), 0.15, 10);
  ASSERT_TRUE(p);
  EXPECT_LT(p->showing, p->stretches);
}

TEST(Persistence, NoiseInAStretchDoesNotVetoAChange) {
  // A 5 % shift judged on 1,000 samples (200 a stretch, sigma 0.2): a
  // stretch's median moves by about 2 % on its own, so one may fall under
  // half a 5 % threshold; its interval still reaches the run's value.
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> d(std::log(1.05), 0.2);
  int vetoed = 0;
  for (int i = 0; i < 200; ++i) {
    std::vector<double> v(1000);
    for (double& x : v) x = d(rng);
    std::vector<double> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    vetoed += !persistence(v, 0.5, 1.0, percentile_sorted(sorted, 50), 0.05, 10)->holds();
  }
  EXPECT_LE(vetoed, 4);
}

TEST(Persistence, TheUndisturbedValueIsTheBestStretchs) {
  std::vector<double> calm = iterations(4000, 226e-6);
  const double a = *undisturbed_value(calm, "p90", Better::lower, 10);
  // Disturbed for the last two stretches, or for three of five: the best
  // stretch ran at the workload's own speed.
  for (double from : {0.6, 0.4, 0.2}) {
    std::vector<double> disturbed = iterations(4000, 226e-6, from, 1.0, 1.7);
    EXPECT_NEAR(*undisturbed_value(disturbed, "p90", Better::lower, 10) / a, 1.0, 0.02) << from;
    std::vector<double> sorted = disturbed;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_GT(percentile_sorted(sorted, 90) / a, 1.6);  // the whole run's p90 is in the slow part
  }
  // A workload 20 % slower is 20 % slower in its best stretch too.
  EXPECT_NEAR(*undisturbed_value(iterations(4000, 271e-6, 0, 0, 1, 3), "median", Better::lower, 10) /
                  *undisturbed_value(calm, "median", Better::lower, 10),
              1.2, 0.02);
  // Higher is better: the highest stretch; no better side: the median of five.
  std::vector<double> rising(5000);
  for (std::size_t i = 0; i < rising.size(); ++i) rising[i] = static_cast<double>(i / 1000);  // 0 .. 4 by stretch
  EXPECT_EQ(*undisturbed_value(rising, "median", Better::higher, 10), 4);
  EXPECT_EQ(*undisturbed_value(rising, "median", Better::lower, 10), 0);
  EXPECT_EQ(*undisturbed_value(rising, "median", Better::none, 10), 2);
  EXPECT_FALSE(undisturbed_value(iterations(40, 1), "median", Better::lower, 10));
  // Level 1's five rounds, a repetition a stretch: the best round.
  const std::vector<double> rounds = {9.04e9, 8.85e9, 4.10e9, 4.09e9, 5.95e9};
  EXPECT_EQ(*undisturbed_value(rounds, "median", Better::higher, 1), 9.04e9);
  EXPECT_FALSE(undisturbed_value(std::vector<double>{9e9, 8e9, 7e9, 6e9}, "median", Better::higher, 1));
  // Statistics with no test of their own too: a slow stretch sets the whole
  // run's maximum and spread, not the best stretch's.
  std::vector<double> one_slow = iterations(4000, 226e-6, 0.2, 0.4, 1.7);
  for (const char* stat : {"max", "stddev", "p95_over_p50", "mean"}) {
    std::vector<double> all = one_slow;
    std::sort(all.begin(), all.end());
    const double whole = *statistic_of_sorted(all, stat),
                 calm_value = *undisturbed_value(calm, stat, Better::lower, 10);
    EXPECT_NEAR(*undisturbed_value(one_slow, stat, Better::lower, 10) / calm_value, 1.0, 0.1) << stat;
    EXPECT_GT(whole / calm_value, 1.1) << stat;
  }
  EXPECT_FALSE(undisturbed_value(calm, "p95_ci_low", Better::lower, 10));  // not a statistic it knows
}

TEST(Persistence, NothingWhereAStretchCannotShowTheStatistic) {
  std::vector<double> five = {1, 2, 3, 4, 5};  // one repetition per stretch
  EXPECT_FALSE(persistence(five, 0.5, 1, 2, 0.1, 10));
  // A 99 % interval of a p99 needs 600-odd samples a stretch.
  EXPECT_TRUE(persistence(iterations(5000, 1), 0.99, 1, 1.5, 0.1, 10));
  EXPECT_FALSE(persistence(iterations(2000, 1), 0.99, 1, 1.5, 0.1, 10));
  EXPECT_FALSE(persistence(iterations(4000, 1), 0.5, 0, 1.5, 0.1, 10));  // no relative change from 0
  EXPECT_FALSE(persistence(iterations(4000, 1), 0.5, 1, 1, 0.1, 10));    // no change
}

}  // namespace
}  // namespace harness
