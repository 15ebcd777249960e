// Descriptive statistics over samples. Percentiles use linear interpolation
// between order statistics (Hyndman & Fan type 7, numpy's default).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace harness {

double mean(std::span<const double> values);
double stddev(std::span<const double> values);  // sample standard deviation (n - 1)
// p in [0, 100]; `sorted` must be sorted ascending and non-empty.
double percentile_sorted(std::span<const double> sorted, double p);
double percentile(std::vector<double> values, double p);
double median(std::vector<double> values);

// A distribution-free confidence interval for a quantile: the order
// statistics x_(lower) and x_(upper) (1-based ranks) that cover the true
// q-quantile with probability `coverage` >= the confidence asked, since the
// number of samples below the quantile is Binomial(n, q).
struct QuantileInterval {
  std::size_t lower_rank = 0;
  std::size_t upper_rank = 0;
  double coverage = 0;  // exact binomial coverage of [x_(lower), x_(upper)]
  double low = 0;       // x_(lower)
  double high = 0;      // x_(upper)
};

// The ranks for n samples, or nothing when n samples are too few for an
// interval at this confidence (one bound would fall outside the sample).
// q in (0, 1), confidence in (0, 1).
std::optional<QuantileInterval> quantile_interval_ranks(std::size_t n, double q, double confidence);
// The interval over sorted samples (ranks as above, values filled in).
std::optional<QuantileInterval> quantile_interval_sorted(std::span<const double> sorted, double q,
                                                         double confidence);
// The fewest samples for which quantile_interval_ranks gives an interval:
// e.g. 368 for p99 at 95 %, 72 for p95, 6 for p50.
std::size_t min_samples_for_quantile(double q, double confidence);

}  // namespace harness
