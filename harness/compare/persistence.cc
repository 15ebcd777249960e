#include "harness/compare/persistence.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "harness/base/stats.h"

namespace harness {

std::optional<Persistence> persistence(std::span<const double> in_order, std::optional<double> q, double baseline,
                                       double change, double threshold, std::size_t min_samples) {
  const std::size_t n = in_order.size();
  const std::size_t shortest = n / kPersistenceStretches;
  if (baseline == 0 || change == 0 || shortest == 0 || shortest < min_samples) return std::nullopt;
  if (q) {
    const double tail = std::min(*q, 1 - *q) * static_cast<double>(shortest);
    if (!(tail >= 5)) return std::nullopt;
  }
  Persistence p;
  p.stretches = kPersistenceStretches;
  std::vector<double> stretch;
  for (std::size_t k = 0; k < kPersistenceStretches; ++k) {
    const std::size_t begin = k * n / kPersistenceStretches, end = (k + 1) * n / kPersistenceStretches;
    stretch.assign(in_order.begin() + static_cast<std::ptrdiff_t>(begin),
                   in_order.begin() + static_cast<std::ptrdiff_t>(end));
    double value = 0;
    if (q) {
      std::sort(stretch.begin(), stretch.end());
      value = percentile_sorted(stretch, 100 * *q);
    } else {
      value = mean(stretch);
    }
    const double relative = (value - baseline) / std::fabs(baseline);
    if ((change > 0 ? relative : -relative) >= threshold / 2) ++p.beyond;
  }
  return p;
}

}  // namespace harness
