// The statistics against reference values computed outside the project with
// SciPy (scripts/gen-stats-vectors.py wrote tests/data/stats_vectors.json).
#include <algorithm>
#include <cmath>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/compare/mann_whitney.h"
#include "harness/base/multiple_testing.h"
#include "harness/compare/nights.h"
#include "harness/compare/noise_band.h"
#include "harness/compare/paired.h"
#include "harness/compare/sample_statistics.h"

namespace harness {
namespace {

nlohmann::json vectors() {
  std::ifstream in(std::string(HARNESS_SOURCE_DIR) + "/tests/data/stats_vectors.json");
  EXPECT_TRUE(in) << "tests/data/stats_vectors.json is missing";
  return nlohmann::json::parse(in);
}

// The cases of one kind, at least `at_least` of them.
nlohmann::json cases(const std::string& kind, std::size_t at_least) {
  nlohmann::json all = vectors()[kind];
  EXPECT_GE(all.size(), at_least) << kind;
  return all;
}

TEST(StatsVectors, MannWhitneyMatchesScipy) {
  for (const auto& c : cases("mann_whitney", 8)) {
    SCOPED_TRACE(c["name"].get<std::string>());
    MannWhitney r = mann_whitney_u(c["x"].get<std::vector<double>>(), c["y"].get<std::vector<double>>());
    EXPECT_DOUBLE_EQ(r.u, c["u"].get<double>());
    EXPECT_NEAR(r.p, c["p"].get<double>(), 1e-6);
    // Tiny p-values must agree relatively too, or 1e-6 says nothing.
    EXPECT_NEAR(r.p, c["p"].get<double>(), 1e-9 + 1e-6 * c["p"].get<double>());
  }
}

TEST(StatsVectors, HodgesLehmannShiftIsTheMedianDifference) {
  nlohmann::json v = vectors();
  int checked = 0;
  for (const auto& c : v["mann_whitney"]) {
    if (!c.contains("hl_lower")) continue;
    SCOPED_TRACE(c["name"].get<std::string>());
    auto x = c["x"].get<std::vector<double>>();
    auto y = c["y"].get<std::vector<double>>();
    std::sort(x.begin(), x.end());
    std::sort(y.begin(), y.end());
    double expected = c["hl_lower"].get<double>();
    double tolerance = 1e-9 * std::max(1.0, std::fabs(expected));
    EXPECT_NEAR(hodges_lehmann_shift_sorted(x, y, tolerance), expected, 2 * tolerance);
    ++checked;
  }
  EXPECT_GE(checked, 8);
}

TEST(StatsVectors, MannWhitneyIsSymmetric) {
  nlohmann::json v = vectors();
  for (const auto& c : v["mann_whitney"]) {
    auto x = c["x"].get<std::vector<double>>();
    auto y = c["y"].get<std::vector<double>>();
    MannWhitney a = mann_whitney_u(x, y), b = mann_whitney_u(y, x);
    EXPECT_DOUBLE_EQ(a.u + b.u, static_cast<double>(x.size() * y.size()));
    EXPECT_DOUBLE_EQ(a.p, b.p);
  }
}

TEST(StatsVectors, NoiseBandMatchesScipyStudentT) {
  for (const auto& c : cases("noise_band", 4)) {
    SCOPED_TRACE(c["name"].get<std::string>());
    auto h = c["history"].get<std::vector<double>>();
    std::optional<NoiseBand> b = noise_band(h, c["value"].get<double>(), 5);
    ASSERT_TRUE(b);
    EXPECT_NEAR(b->t, c["t"].get<double>(), 1e-9 * std::max(1.0, std::fabs(c["t"].get<double>())));
    EXPECT_NEAR(b->p, c["p"].get<double>(), 1e-9 + 1e-6 * c["p"].get<double>());
  }
}

TEST(StatsVectors, WelchTMatchesScipy) {
  for (const auto& c : cases("welch", 3)) {
    SCOPED_TRACE(c["name"].get<std::string>());
    std::optional<double> p = welch_t_p(c["x"].get<std::vector<double>>(), c["y"].get<std::vector<double>>());
    ASSERT_TRUE(p);
    EXPECT_NEAR(*p, c["p"].get<double>(), 1e-9 + 1e-6 * c["p"].get<double>());
  }
}

TEST(StatsVectors, HolmAndBenjaminiHochbergMatchTheDefinitions) {
  nlohmann::json v = vectors();
  for (const auto& c : v["p_adjust"]) {
    auto p = c["p"].get<std::vector<double>>();
    std::vector<double> holm = adjust_p_values(p, Correction::holm);
    std::vector<double> bh = adjust_p_values(p, Correction::bh);
    ASSERT_EQ(holm.size(), p.size());
    for (std::size_t i = 0; i < p.size(); ++i) {
      EXPECT_NEAR(holm[i], c["holm"][i].get<double>(), 1e-12) << "holm " << i;
      EXPECT_NEAR(bh[i], c["bh"][i].get<double>(), 1e-12) << "bh " << i;
    }
  }
}

TEST(StatsVectors, PairedRoundsMatchScipyTtestRelAndWilcoxon) {
  for (const auto& c : cases("paired", 6)) {
    SCOPED_TRACE(c["name"].get<std::string>());
    std::optional<PairedRounds> p = paired_rounds(c["ratios"].get<std::vector<double>>());
    ASSERT_TRUE(p);
    EXPECT_NEAR(p->t, c["t"].get<double>(), 1e-9 * std::max(1.0, std::fabs(c["t"].get<double>())));
    EXPECT_NEAR(p->p_t, c["p_t"].get<double>(), 1e-12 + 1e-7 * c["p_t"].get<double>());
    EXPECT_NEAR(p->p_wilcoxon, c["p_wilcoxon"].get<double>(), 1e-12 + 1e-7 * c["p_wilcoxon"].get<double>());
    // The interval judge_change draws is SciPy's confidence_interval(0.95),
    // or with a round far from the others the signed-rank one.
    JudgementSettings s;
    s.alpha = 0.05;
    Judgement j = judge_change(p->evidence(), s);
    const bool robust = c["outliers"].get<int>() > 0;
    EXPECT_NEAR(std::log1p(j.low), c[robust ? "hl_low" : "low"].get<double>(), 1e-9);
    EXPECT_NEAR(std::log1p(j.high), c[robust ? "hl_high" : "high"].get<double>(), 1e-9);
    if (robust) {
      EXPECT_NEAR(j.p, c["p_wilcoxon"].get<double>(), 1e-12);
    }
    if (p->outliers == 0) {
      EXPECT_NEAR(j.p, c["p_t"].get<double>(), 1e-12 + 1e-7 * c["p_t"].get<double>());
    }
    // The robust side: Hodges-Lehmann, its signed-rank interval, the outliers.
    EXPECT_EQ(p->outliers, c["outliers"].get<std::size_t>());
    EXPECT_NEAR(p->hodges_lehmann, c["hodges_lehmann"].get<double>(), 1e-12);
    std::optional<std::pair<double, double>> hl = signed_rank_interval(p->walsh, p->rounds, 0.95);
    ASSERT_TRUE(hl);
    EXPECT_NEAR(hl->first, c["hl_low"].get<double>(), 1e-12);
    EXPECT_NEAR(hl->second, c["hl_high"].get<double>(), 1e-12);
  }
}

TEST(StatsVectors, ANightAgainstNightsMatchesScipyStudentT) {
  for (const auto& c : cases("nights", 4)) {
    SCOPED_TRACE(c["name"].get<std::string>());
    auto nights = c["nights"].get<std::vector<double>>();
    std::optional<ChangeEvidence> e = night_evidence(nights, c["value"].get<double>(), 3, std::nullopt);
    ASSERT_TRUE(e);
    EXPECT_NEAR(e->estimate, c["estimate"].get<double>(), 1e-12);
    EXPECT_NEAR(e->standard_error, c["se"].get<double>(), 1e-12);
    EXPECT_DOUBLE_EQ(e->degrees_of_freedom, c["df"].get<double>());
    JudgementSettings s;
    Judgement j = judge_change(*e, s);
    EXPECT_NEAR(j.p, c["p"].get<double>(), 1e-12 + 1e-7 * c["p"].get<double>());
    EXPECT_NEAR(std::log1p(j.low), c["low"].get<double>(), 1e-9);
    EXPECT_NEAR(std::log1p(j.high), c["high"].get<double>(), 1e-9);
    EXPECT_NEAR(std::log1p(j.detectable), c["detectable"].get<double>(), 1e-9);
  }
}

}  // namespace
}  // namespace harness
