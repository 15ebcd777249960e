// Descriptive statistics over samples. Percentiles use linear interpolation
// between order statistics (Hyndman & Fan type 7, numpy's default).
#pragma once

#include <span>
#include <vector>

namespace harness {

double mean(std::span<const double> values);
double stddev(std::span<const double> values);  // sample standard deviation (n - 1)
// p in [0, 100]; `sorted` must be sorted ascending and non-empty.
double percentile_sorted(std::span<const double> sorted, double p);
double percentile(std::vector<double> values, double p);
double median(std::vector<double> values);

}  // namespace harness
