// Two-sample Mann-Whitney U test (Wilcoxon rank-sum), normal approximation
// with tie correction and continuity correction, two-sided: the same
// statistic and p-value as SciPy's
// mannwhitneyu(x, y, use_continuity=True, alternative="two-sided",
// method="asymptotic"). Chosen over a t-test because latencies and repeated
// bandwidth readings are skewed and heavy-tailed; U only uses ranks.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace harness {

struct MannWhitney {
  double u = 0;  // U of the first sample: its rank sum minus n1(n1+1)/2
  double z = 0;  // standardised max(U1, U2), continuity-corrected
  double p = 1;  // two-sided
};

// Both inputs sorted ascending and non-empty. Linear in n1 + n2 after the sort.
MannWhitney mann_whitney_u_sorted(std::span<const double> x, std::span<const double> y);
// Sorts copies, then as above.
MannWhitney mann_whitney_u(std::vector<double> x, std::vector<double> y);

}  // namespace harness

namespace harness {

// Hodges-Lehmann estimate of the shift from x to y: the median of all
// differences y_j - x_i, the effect size that goes with the U test (robust
// like the median, nearly as precise as the mean difference). Both inputs
// sorted ascending and non-empty. Found by bisection on the shift with an
// O(n1 + n2) count per step, to within `tolerance`, without forming the
// n1 * n2 differences.
double hodges_lehmann_shift_sorted(std::span<const double> x, std::span<const double> y, double tolerance);

}  // namespace harness
