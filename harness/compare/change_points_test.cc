#include "harness/compare/change_points.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "harness/base/stats.h"

namespace harness {
namespace {

std::vector<double> noise(std::size_t n, double level, double sd, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(level, sd);
  std::vector<double> v(n);
  for (double& x : v) x = d(rng);
  return v;
}

TEST(ChangePoints, FindsOneStepWhereItIs) {
  std::vector<double> v = noise(30, 100, 2, 1);
  std::vector<double> after = noise(25, 112, 2, 2);
  v.insert(v.end(), after.begin(), after.end());
  std::vector<ChangePoint> c = find_change_points(v);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].index, 30u);
  EXPECT_NEAR(c[0].before, 100, 1.5);
  EXPECT_NEAR(c[0].after, 112, 1.5);
}

TEST(ChangePoints, StationaryNoiseRarelyShowsAStep) {
  int series_with_steps = 0;
  for (std::uint64_t seed = 0; seed < 100; ++seed)
    if (!find_change_points(noise(40, 50, 3, 1000 + seed)).empty()) ++series_with_steps;
  EXPECT_LE(series_with_steps, 5);
}

TEST(ChangePoints, OneWildRunIsNotALevelShift) {
  // A night 4 sigma off. (A far wilder single night, 20 sigma, would show as
  // a short level of its own: the fit is least squares, not robust.)
  std::vector<double> v = noise(30, 10, 0.2, 7);
  v[15] = 10.8;
  EXPECT_TRUE(find_change_points(v).empty());
}

TEST(ChangePoints, ASlowDriftShowsAsAStaircase) {
  // 60 nights, each 0.5 % slower than the one before, with 1 % noise: no single
  // night moves by more than a compare threshold, yet the level walks 30 %.
  std::vector<double> v = noise(60, 0, 0.01, 3);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] += 1.0 + 0.005 * static_cast<double>(i);
  std::vector<ChangePoint> c = find_change_points(v);
  ASSERT_GE(c.size(), 2u);
  for (const ChangePoint& p : c) EXPECT_GT(p.after, p.before);
}

TEST(ChangePoints, DeclaredValuesThatChangedOnce) {
  std::vector<double> v(20, 5.0);
  for (std::size_t i = 12; i < v.size(); ++i) v[i] = 6.0;
  std::vector<ChangePoint> c = find_change_points(v);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].index, 12u);
  EXPECT_EQ(c[0].before, 5.0);
  EXPECT_EQ(c[0].after, 6.0);
}

TEST(ChangePoints, LongHistoriesFindTheSameShifts) {
  // 10,000 nightly runs (binary segmentation) with two well separated shifts.
  std::vector<double> v = noise(10000, 100, 2, 11);
  for (std::size_t i = 4000; i < v.size(); ++i) v[i] += 5;
  for (std::size_t i = 7500; i < v.size(); ++i) v[i] -= 8;
  std::vector<ChangePoint> c = find_change_points(v);
  ASSERT_EQ(c.size(), 2u);
  // A shift of 2.5 and 4 noise sd: located to within a run or two.
  EXPECT_NEAR(static_cast<double>(c[0].index), 4000, 2);
  EXPECT_NEAR(static_cast<double>(c[1].index), 7500, 2);
  EXPECT_NEAR(c[1].after, 97, 0.2);
}

// The exact search without any pruning (optimal partitioning, every split
// tried at every t) on the cost and penalty find_change_points documents:
// PELT's pruning must never drop the split the full search picks.
std::vector<std::size_t> unpruned_splits(const std::vector<double>& x, std::size_t m) {
  const std::size_t n = x.size();
  const double sigma = difference_noise_scale(x);
  const double centre = mean(x);
  std::vector<double> s1(n + 1, 0), s2(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const double z = (x[i] - centre) / sigma;
    s1[i + 1] = s1[i] + z;
    s2[i + 1] = s2[i] + z * z;
  }
  const double beta = 3 * std::log(static_cast<double>(n));
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> best(n + 1, inf);
  std::vector<std::size_t> last(n + 1, 0);
  best[0] = -beta;
  for (std::size_t t = m; t <= n; ++t) {
    for (std::size_t tau = 0; tau + m <= t; ++tau) {
      if (!(best[tau] < inf)) continue;
      const double len = static_cast<double>(t - tau), sum = s1[t] - s1[tau];
      const double v = best[tau] + std::max(0.0, (s2[t] - s2[tau]) - sum * sum / len) + beta;
      if (v < best[t]) { best[t] = v; last[t] = tau; }
    }
  }
  std::vector<std::size_t> splits;
  for (std::size_t t = n; t > 0; t = last[t])
    if (last[t] > 0) splits.insert(splits.begin(), last[t]);
  return splits;
}

TEST(ChangePoints, PrunedSearchFindsWhatTheFullSearchFinds) {
  std::mt19937_64 rng(42);
  int with_steps = 0;
  for (std::uint64_t seed = 0; seed < 60; ++seed) {
    // Stable stretches (where PELT prunes least) with a few steps between them.
    std::vector<double> v;
    double level = 100;
    while (v.size() < 300) {
      std::vector<double> part = noise(20 + rng() % 80, level, 2, 5000 + seed * 10 + v.size());
      v.insert(v.end(), part.begin(), part.end());
      level *= (rng() % 3 == 0) ? 1.0 : (rng() % 2 ? 1.06 : 0.95);
    }
    std::vector<std::size_t> expected = unpruned_splits(v, 3);
    std::vector<std::size_t> got;
    for (const ChangePoint& c : find_change_points(v)) got.push_back(c.index);
    EXPECT_EQ(got, expected) << "seed " << seed;
    with_steps += expected.empty() ? 0 : 1;
  }
  EXPECT_GT(with_steps, 30);  // the comparison saw real segmentations
}

TEST(ChangePoints, TooShortOrConstantGivesNothing) {
  EXPECT_TRUE(find_change_points(std::vector<double>{1, 2, 3, 4, 5}).empty());
  EXPECT_TRUE(find_change_points(std::vector<double>(50, 3.0)).empty());
}

}  // namespace
}  // namespace harness
