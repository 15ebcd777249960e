#include "harness/compare/persistence.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "harness/base/stats.h"

namespace harness {

std::optional<std::vector<StretchStatistic>> stretch_statistics(std::span<const double> in_order,
                                                                std::optional<double> q, std::size_t min_samples) {
  const std::size_t n = in_order.size();
  const std::size_t shortest = n / kPersistenceStretches;
  if (shortest < std::max<std::size_t>(min_samples, 2)) return std::nullopt;
  if (q && !quantile_interval_ranks(shortest, *q, kPersistenceConfidence)) return std::nullopt;
  std::vector<StretchStatistic> out;
  out.reserve(kPersistenceStretches);
  std::vector<double> stretch;
  for (std::size_t k = 0; k < kPersistenceStretches; ++k) {
    const std::size_t begin = k * n / kPersistenceStretches, end = (k + 1) * n / kPersistenceStretches;
    stretch.assign(in_order.begin() + static_cast<std::ptrdiff_t>(begin),
                   in_order.begin() + static_cast<std::ptrdiff_t>(end));
    StretchStatistic s;
    if (q) {
      std::sort(stretch.begin(), stretch.end());
      s.value = percentile_sorted(stretch, 100 * *q);
      std::optional<QuantileInterval> ci = quantile_interval_sorted(stretch, *q, kPersistenceConfidence);
      if (!ci) return std::nullopt;
      s.low = ci->low, s.high = ci->high;
    } else {
      s.value = mean(stretch);
      const double half = 2.576 * stddev(stretch) / std::sqrt(static_cast<double>(stretch.size()));
      s.low = s.value - half, s.high = s.value + half;
    }
    out.push_back(s);
  }
  return out;
}

std::optional<double> undisturbed_value(std::span<const double> in_order, std::optional<double> q,
                                        std::size_t min_samples) {
  std::optional<std::vector<StretchStatistic>> stretches = stretch_statistics(in_order, q, min_samples);
  if (!stretches) return std::nullopt;
  std::vector<double> values;
  for (const StretchStatistic& s : *stretches) values.push_back(s.value);
  return median(std::move(values));
}

std::optional<Persistence> persistence(std::span<const double> in_order, std::optional<double> q, double baseline,
                                       double current, double threshold, std::size_t min_samples) {
  if (baseline == 0 || current == baseline) return std::nullopt;
  std::optional<std::vector<StretchStatistic>> stretches = stretch_statistics(in_order, q, min_samples);
  if (!stretches) return std::nullopt;
  const double side = current > baseline ? 1.0 : -1.0;  // the change's direction
  Persistence p;
  p.stretches = stretches->size();
  for (const StretchStatistic& s : *stretches) {
    const bool near_baseline = side * (s.value - baseline) / std::fabs(baseline) < threshold / 2;
    const bool short_of_run = side > 0 ? s.high < current : s.low > current;
    if (!(near_baseline && short_of_run)) ++p.showing;
  }
  return p;
}

}  // namespace harness
