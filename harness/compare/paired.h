// Paired rounds: the candidate and a reference measured alternately in one
// run, so that whatever the rig does during a round both sides see. Per round
// r the metric's block statistic of each side gives the log ratio
// l_r = ln(candidate_r / reference_r); the effect is their mean, judged with
// the paired t distribution (scipy.stats.ttest_rel on the logs), with the
// Wilcoxon signed-rank test (scipy.stats.wilcoxon) beside it as a check that
// needs no normality. When the rounds are far from normal (a round more than
// 4 robust standard deviations, 1.4826 x MAD, from their median: a stall of
// the host in one side's block, which a block's mean or throughput cannot
// shrug off), the effect is the Hodges-Lehmann estimate (the median of the
// Walsh averages (l_i + l_j) / 2, i <= j) with its distribution-free
// signed-rank interval, the p the Wilcoxon test's, and the standard error
// for the smallest detectable change 1.4826 x MAD / sqrt(R). Reference
// vectors: scripts/gen-stats-vectors.py.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "harness/compare/judgement.h"

namespace harness {

struct PairedRounds {
  std::size_t rounds = 0;
  double mean_log = 0;  // mean of l_r
  double sd_log = 0;    // sample standard deviation of l_r (n - 1)
  double t = 0;         // mean / (sd / sqrt(n))
  double p_t = 1;       // two-sided, n - 1 degrees of freedom
  double p_wilcoxon = 1;  // two-sided signed-rank p of l_r (exact up to 50 rounds without ties or zeros)
  // Rounds more than 4 robust standard deviations from their median; with
  // any, the evidence is the signed-rank one.
  std::size_t outliers = 0;
  double hodges_lehmann = 0;  // median of the Walsh averages of l_r
  double mad_sd = 0;          // 1.4826 x median |l_r - median|
  std::vector<double> walsh;  // the sorted Walsh averages (kept for the interval)
  ChangeEvidence evidence() const;  // for judge_change
};

// The distribution-free interval of the Hodges-Lehmann estimate from sorted
// Walsh averages of n values: [W_(k), W_(N+1-k)] with k the largest rank
// whose lower tail P(T+ <= k - 1) stays within (1 - confidence) / 2 (the
// exact signed-rank distribution up to 1000 values, normal beyond). Nothing
// when n is too small for the confidence.
std::optional<std::pair<double, double>> signed_rank_interval(std::span<const double> walsh_sorted, std::size_t n,
                                                              double confidence);

// From the per-round ratios candidate / reference (each > 0 and finite);
// nothing with fewer than 2 rounds or a ratio that is not.
std::optional<PairedRounds> paired_rounds(std::span<const double> ratios);

// The Wilcoxon signed-rank test of differences `d` against 0, as SciPy 1.10
// computes it with its defaults (zero_method "wilcox": zeros dropped, no
// continuity correction): the exact null distribution for up to 50
// differences without zeros (with tied magnitudes too, at the rank sum
// truncated to an integer, as SciPy does), else the normal approximation
// with the tie correction. 1 when nothing is left.
double wilcoxon_signed_rank_p(std::span<const double> d);

}  // namespace harness
