#include "harness/base/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace harness {

double mean(std::span<const double> v) {
  if (v.empty()) return NAN;
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double stddev(std::span<const double> v) {
  if (v.size() < 2) return NAN;
  double m = mean(v);
  double ss = 0;
  for (double x : v) ss += (x - m) * (x - m);
  return std::sqrt(ss / static_cast<double>(v.size() - 1));
}

double percentile_sorted(std::span<const double> sorted, double p) {
  if (sorted.empty()) return NAN;
  double h = (static_cast<double>(sorted.size()) - 1) * std::clamp(p, 0.0, 100.0) / 100.0;
  std::size_t lo = static_cast<std::size_t>(std::floor(h));
  std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

double percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  return percentile_sorted(values, p);
}

double median(std::vector<double> values) { return percentile(std::move(values), 50); }

}  // namespace harness
