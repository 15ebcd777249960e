#include "harness/compare/persistence.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <boost/math/distributions/normal.hpp>

#include "harness/base/stats.h"
#include "harness/compare/sample_statistics.h"

namespace harness {

namespace {

// Calls `take` with each of the kPersistenceStretches consecutive stretches of
// `in_order`, sorted; false as soon as `take` returns false.
template <class Take>
bool each_sorted_stretch(std::span<const double> in_order, Take&& take) {
  const std::size_t n = in_order.size();
  std::vector<double> stretch;
  for (std::size_t k = 0; k < kPersistenceStretches; ++k) {
    const std::size_t begin = k * n / kPersistenceStretches, end = (k + 1) * n / kPersistenceStretches;
    stretch.assign(in_order.begin() + static_cast<std::ptrdiff_t>(begin),
                   in_order.begin() + static_cast<std::ptrdiff_t>(end));
    std::sort(stretch.begin(), stretch.end());
    if (!take(std::span<const double>(stretch))) return false;
  }
  return true;
}

bool stretches_hold(std::size_t n, std::size_t min_samples) {
  return n / kPersistenceStretches >= std::max<std::size_t>(min_samples, 1);
}

}  // namespace

std::optional<std::vector<StretchStatistic>> stretch_statistics(std::span<const double> in_order,
                                                                std::optional<double> q, std::size_t min_samples) {
  if (!stretches_hold(in_order.size(), std::max<std::size_t>(min_samples, 2))) return std::nullopt;
  // The normal interval's half width in standard errors at kPersistenceConfidence.
  const double z = boost::math::quantile(boost::math::normal(), 0.5 + kPersistenceConfidence / 2);
  std::vector<StretchStatistic> out;
  out.reserve(kPersistenceStretches);
  const bool all = each_sorted_stretch(in_order, [&](std::span<const double> sorted) {
    StretchStatistic s;
    if (q) {
      std::optional<QuantileInterval> ci = quantile_interval_sorted(sorted, *q, kPersistenceConfidence);
      if (!ci) return false;
      s.value = percentile_sorted(sorted, 100 * *q);
      s.low = ci->low, s.high = ci->high;
    } else {
      s.value = mean(sorted);
      const double half = z * stddev(sorted) / std::sqrt(static_cast<double>(sorted.size()));
      s.low = s.value - half, s.high = s.value + half;
    }
    out.push_back(s);
    return true;
  });
  if (!all) return std::nullopt;
  return out;
}

std::optional<double> undisturbed_value(std::span<const double> in_order, std::string_view name, Better better,
                                        std::size_t min_samples) {
  if (!stretches_hold(in_order.size(), min_samples)) return std::nullopt;
  std::vector<double> values;
  const bool all = each_sorted_stretch(in_order, [&](std::span<const double> sorted) {
    std::optional<double> v = statistic_of_sorted(sorted, name);
    if (!v || !std::isfinite(*v)) return false;
    values.push_back(*v);
    return true;
  });
  if (!all) return std::nullopt;
  if (better == Better::lower) return *std::min_element(values.begin(), values.end());
  if (better == Better::higher) return *std::max_element(values.begin(), values.end());
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
