// The one rule (judgement.h) on constructed evidence, and the smallest
// detectable change against a simulation: at the change the formula names,
// a test at alpha should detect about 1 - beta of 10,000 draws.
#include "harness/compare/judgement.h"

#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "harness/compare/nights.h"
#include "harness/compare/paired.h"

namespace harness {
namespace {

ChangeEvidence evidence(double estimate, double se, double df) {
  ChangeEvidence e;
  e.estimate = estimate;
  e.standard_error = se;
  e.degrees_of_freedom = df;
  e.basis = "test";
  return e;
}

JudgementSettings settings(double threshold, Better better = Better::lower) {
  JudgementSettings s;
  s.threshold = threshold;
  s.better = better;
  return s;
}

TEST(Judgement, FourOutcomes) {
  // +10 % with a narrow interval, latency: regressed.
  Judgement j = judge_change(evidence(std::log(1.10), 0.01, 19), settings(0.05));
  EXPECT_EQ(j.outcome, Change::regressed);
  EXPECT_EQ(j.decided_by, "significance");
  EXPECT_NEAR(j.change, 0.10, 1e-12);
  // The mirror for a figure where higher is better.
  EXPECT_EQ(judge_change(evidence(std::log(1.10), 0.01, 19), settings(0.05, Better::higher)).outcome,
            Change::improved);
  EXPECT_EQ(judge_change(evidence(std::log(1.10), 0.01, 19), settings(0.05, Better::none)).outcome,
            Change::changed);
  // Nothing moved and the spread could see 5 %: unchanged, with the power stated.
  j = judge_change(evidence(0.002, 0.01, 19), settings(0.05));
  EXPECT_EQ(j.outcome, Change::unchanged);
  EXPECT_NE(j.why.find("would detect ≥ 3.0 %"), std::string::npos) << j.why;
  EXPECT_NE(j.why.find("at 90 %"), std::string::npos) << j.why;
  // The same estimate on a spread that could not see 5 %: cannot tell, never unchanged.
  j = judge_change(evidence(0.002, 0.04, 19), settings(0.05));
  EXPECT_EQ(j.outcome, Change::cannot_tell);
  EXPECT_EQ(j.decided_by, "spread");
  EXPECT_NE(j.why.find("spread too wide for the ±5 % threshold"), std::string::npos) << j.why;
}

TEST(Judgement, BeyondTheThresholdButNotSignificantIsCannotTell) {
  // +8 % on a spread that sees 5 %, but the family's correction took the significance.
  Judgement j = judge_change(evidence(std::log(1.08), 0.012, 19), settings(0.05), 0.2);
  EXPECT_EQ(j.outcome, Change::cannot_tell);
  EXPECT_EQ(j.decided_by, "significance");
  EXPECT_NE(j.why.find("beyond the ±5 % threshold but not significant"), std::string::npos) << j.why;
}

TEST(Judgement, SignificantButSmallIsUnchangedOnlyWhenTheIntervalStaysInside) {
  // +2 %, significant, interval inside ±5 %: unchanged (the change is real but below what counts).
  Judgement j = judge_change(evidence(std::log(1.02), 0.005, 29), settings(0.05));
  EXPECT_LT(j.p, 0.05);
  EXPECT_EQ(j.outcome, Change::unchanged);
  // +4 %, significant, the interval reaches past +5 %: cannot tell.
  j = judge_change(evidence(std::log(1.04), 0.008, 29), settings(0.05));
  EXPECT_LT(j.p, 0.05);
  EXPECT_EQ(j.outcome, Change::cannot_tell);
  EXPECT_EQ(j.decided_by, "interval");
  EXPECT_NE(j.why.find("significant, but the interval reaches beyond"), std::string::npos) << j.why;
}

TEST(Judgement, MoreLooksSplitAlpha) {
  // p about 0.02: significant at one look, not when alpha is split over three.
  ChangeEvidence e = evidence(std::log(1.10), 0.04, 19);
  JudgementSettings s = settings(0.05);
  EXPECT_EQ(judge_change(e, s).outcome, Change::regressed);
  s.looks = 3;
  EXPECT_EQ(judge_change(e, s).outcome, Change::cannot_tell);
  EXPECT_GT(detectable_change(e, s), detectable_change(e, settings(0.05)));
}

TEST(Judgement, NoSpreadAtAll) {
  EXPECT_EQ(judge_change(evidence(0, 0, 4), settings(0.05)).outcome, Change::unchanged);
  EXPECT_EQ(judge_change(evidence(std::log(1.2), 0, 4), settings(0.05)).outcome, Change::regressed);
}

// At the detectable change, a paired t test at alpha detects about 80 % of
// the draws (the formula's power), within 10 %.
TEST(Judgement, TheDetectableChangeOfPairedRoundsHoldsInSimulation) {
  std::mt19937_64 rng(2026);
  for (std::size_t rounds : {6u, 12u, 25u}) {
    const double sigma = 0.04;
    ChangeEvidence e = evidence(0, sigma / std::sqrt(double(rounds)), double(rounds) - 1);
    const JudgementSettings s = settings(0.05);
    const double delta = std::log1p(detectable_change(e, s));
    std::normal_distribution<double> noise(delta, sigma);
    int detected = 0;
    const int draws = 10000;
    std::vector<double> ratios(rounds);
    for (int d = 0; d < draws; ++d) {
      for (double& r : ratios) r = std::exp(noise(rng));
      if (paired_rounds(ratios)->p_t < s.alpha) ++detected;
    }
    const double rate = double(detected) / draws;
    EXPECT_NEAR(rate, s.power, 0.1 * s.power) << rounds << " rounds";
  }
}

// The same for a night against N baseline nights of lognormal spread.
TEST(Judgement, TheDetectableChangeOfANightAgainstNightsHoldsInSimulation) {
  std::mt19937_64 rng(2027);
  for (std::size_t n : {3u, 5u, 10u}) {
    const double sigma = 0.06;
    ChangeEvidence e = evidence(0, sigma * std::sqrt(1.0 / n + 1), double(n) - 1);
    const JudgementSettings s = settings(0.05);
    const double delta = std::log1p(detectable_change(e, s));
    std::normal_distribution<double> noise(0, sigma);
    int detected = 0;
    const int draws = 10000;
    std::vector<double> nights(n);
    for (int d = 0; d < draws; ++d) {
      for (double& v : nights) v = 300e-6 * std::exp(noise(rng));
      const double tonight = 300e-6 * std::exp(delta + noise(rng));
      std::optional<ChangeEvidence> ev = night_evidence(nights, tonight, 3, std::nullopt);
      if (judge_change(*ev, s).p < s.alpha) ++detected;
    }
    EXPECT_NEAR(double(detected) / draws, s.power, 0.1 * s.power) << n << " nights";
  }
}

// A/A: at alpha 0.05 about 5 % of paired comparisons are significant, and
// with rounds enough to see the threshold nearly all end unchanged.
TEST(Judgement, PairedAAKeepsItsFalseAlarmRate) {
  std::mt19937_64 rng(2028);
  std::normal_distribution<double> noise(0, 0.03);
  int regressed = 0, unchanged = 0;
  const int draws = 4000;
  std::vector<double> ratios(20);
  for (int d = 0; d < draws; ++d) {
    for (double& r : ratios) r = std::exp(noise(rng));
    Judgement j = judge_change(paired_rounds(ratios)->evidence(), settings(0.05));
    regressed += j.outcome == Change::regressed;
    unchanged += j.outcome == Change::unchanged;
  }
  EXPECT_EQ(regressed, 0);  // significant A/A draws are all far inside the threshold
  EXPECT_GT(unchanged, draws * 0.95);
}

// A stall of the host in one side's block of one round (its mean 3x) makes the
// rounds far from normal: the signed-rank evidence decides, not the one round.
TEST(Judgement, ARoundFarFromTheOthersDoesNotDecide) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> noise(0, 0.02);
  for (double factor : {1.0, 1.10}) {
    std::vector<double> ratios(20);
    for (double& r : ratios) r = factor * std::exp(noise(rng));
    ratios[7] = 3.0;
    std::optional<PairedRounds> p = paired_rounds(ratios);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->outliers, 1u);
    const ChangeEvidence e = p->evidence();
    EXPECT_EQ(e.basis, "20 paired rounds, 1 far from the others: the signed-rank estimate and interval");
    // On A/A rounds the t test cannot tell: the stall dominates its spread.
    ChangeEvidence t = e;
    t.estimate = p->mean_log;
    t.standard_error = p->sd_log / std::sqrt(20.0);
    t.p.reset();
    t.interval = nullptr;
    if (factor == 1.0) {
      EXPECT_EQ(judge_change(t, settings(0.05)).outcome, Change::cannot_tell);
    }
    EXPECT_EQ(judge_change(e, settings(0.05)).outcome, factor == 1.0 ? Change::unchanged : Change::regressed)
        << judge_change(e, settings(0.05)).why;
  }
}

TEST(Nights, OneNightNeedsAnOutsideSpread) {
  std::vector<double> one = {480e-6};
  EXPECT_FALSE(night_evidence(one, 500e-6, 3, std::nullopt));
  NightSpread calibration{0.05, 19, ChangeScale::log_ratio, "calibration (20 nights)"};
  std::optional<ChangeEvidence> e = night_evidence(one, 500e-6, 3, calibration);
  ASSERT_TRUE(e);
  EXPECT_NEAR(e->standard_error, 0.05 * std::sqrt(2.0), 1e-12);
  EXPECT_DOUBLE_EQ(e->degrees_of_freedom, 19);
  EXPECT_EQ(e->basis, "1 baseline night, the spread of calibration (20 nights)");
}

TEST(Nights, TooFewBaselineNightsPoolWithTheCalibration) {
  std::vector<double> two = {480e-6, 490e-6};
  EXPECT_FALSE(night_evidence(two, 500e-6, 3, std::nullopt));
  NightSpread calibration{0.05, 9, ChangeScale::log_ratio, "calibration (10 nights)"};
  std::optional<ChangeEvidence> e = night_evidence(two, 500e-6, 3, calibration);
  ASSERT_TRUE(e);
  EXPECT_DOUBLE_EQ(e->degrees_of_freedom, 9);
  std::vector<double> three = {480e-6, 490e-6, 470e-6};
  e = night_evidence(three, 500e-6, 3, calibration);
  ASSERT_TRUE(e);
  EXPECT_DOUBLE_EQ(e->degrees_of_freedom, 11);
  EXPECT_EQ(e->basis, "3 baseline nights' spread pooled with calibration (10 nights)");
}

TEST(Nights, ValuesThatAreNotAllPositiveAreJudgedRelative) {
  std::vector<double> nights = {-1.0, 1.0, 3.0};
  std::optional<ChangeEvidence> e = night_evidence(nights, 2.0, 3, std::nullopt);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->scale, ChangeScale::relative);
  EXPECT_NEAR(e->estimate, 1.0, 1e-12);  // (2 - 1) / |1|
}

TEST(Nights, ACountVariesAtLeastAsAPoissonCount) {
  std::vector<double> nights = {2, 2, 2, 2, 2};
  std::optional<ChangeEvidence> e = night_evidence(nights, 1, 3, std::nullopt, NoiseFloor::counting);
  ASSERT_TRUE(e);
  // The nights' mean of 2 spreads by sqrt(2) / 2 of itself, the new count of 1 by all of itself.
  EXPECT_NEAR(e->standard_error, std::sqrt(0.5 / 5 + 1), 1e-12);
  EXPECT_NE(judge_change(*e, settings(0.1)).outcome, Change::improved);
}

}  // namespace
}  // namespace harness
