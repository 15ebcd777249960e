#include "harness/compare/persistence.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "harness/base/stats.h"

namespace harness {

std::optional<Persistence> persistence(std::span<const double> in_order, std::optional<double> q, double baseline,
                                       double current, double threshold, std::size_t min_samples) {
  const std::size_t n = in_order.size();
  const std::size_t shortest = n / kPersistenceStretches;
  if (baseline == 0 || current == baseline || shortest < std::max<std::size_t>(min_samples, 2)) return std::nullopt;
  if (q && !quantile_interval_ranks(shortest, *q, kPersistenceConfidence)) return std::nullopt;
  const double side = current > baseline ? 1.0 : -1.0;  // the change's direction
  Persistence p;
  p.stretches = kPersistenceStretches;
  std::vector<double> stretch;
  for (std::size_t k = 0; k < kPersistenceStretches; ++k) {
    const std::size_t begin = k * n / kPersistenceStretches, end = (k + 1) * n / kPersistenceStretches;
    stretch.assign(in_order.begin() + static_cast<std::ptrdiff_t>(begin),
                   in_order.begin() + static_cast<std::ptrdiff_t>(end));
    double value = 0, low = 0, high = 0;
    if (q) {
      std::sort(stretch.begin(), stretch.end());
      value = percentile_sorted(stretch, 100 * *q);
      std::optional<QuantileInterval> ci = quantile_interval_sorted(stretch, *q, kPersistenceConfidence);
      if (!ci) return std::nullopt;
      low = ci->low, high = ci->high;
    } else {
      value = mean(stretch);
      const double half = 2.576 * stddev(stretch) / std::sqrt(static_cast<double>(stretch.size()));
      low = value - half, high = value + half;
    }
    const bool near_baseline = side * (value - baseline) / std::fabs(baseline) < threshold / 2;
    const bool short_of_run = side > 0 ? high < current : low > current;
    if (!(near_baseline && short_of_run)) ++p.showing;
  }
  return p;
}

}  // namespace harness
