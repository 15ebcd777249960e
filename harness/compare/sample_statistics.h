// Tests for one statistic of two sample sets, for metrics computed from
// samples that are not the set's location: a percentile ("latency_p95") or
// the mean ("latency_mean"). The U test speaks about the bulk of the
// distributions; a tail percentile can move while the bulk stays.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace harness {

// Two-sided p for a difference in the q-quantile (0 < q < 1) of two sorted
// samples. Each quantile's standard error comes from the distribution-free
// 95 % confidence interval between order statistics (ranks n q -/+ 1.96
// sqrt(n q (1 - q))), divided by 2 x 1.96; the difference is then taken as
// normal. Nothing when either side has n q (1 - q) < 5: too few samples in
// that tail for the interval to mean anything.
std::optional<double> quantile_difference_p(std::span<const double> x_sorted, std::span<const double> y_sorted,
                                            double q);

// Welch's unequal-variances t test of the means, two-sided: the same p as
// SciPy's ttest_ind(x, y, equal_var=False). Nothing below 2 values a side.
std::optional<double> welch_t_p(std::span<const double> x, std::span<const double> y);

// A statistic of a sample set by the name a metric gives it after its set's
// ("latency_p90" -> "p90"). The percentile a name stands for, in (0, 100):
// "median" 50, "p<N>" N; nothing for another name.
std::optional<double> percentile_of_statistic(std::string_view name);
// Its value over sorted samples: a percentile as above, "mean", "stddev",
// "min", "max", "p<A>_over_p<B>". Nothing for another name, too few samples
// (stddev wants 2), or a ratio over a zero.
std::optional<double> statistic_of_sorted(std::span<const double> sorted, std::string_view name);

}  // namespace harness
