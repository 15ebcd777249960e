#include "harness/compare/nights.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "harness/base/stats.h"

namespace harness {
namespace {

std::vector<double> on_scale(std::span<const double> values, ChangeScale scale, double centre) {
  std::vector<double> out;
  out.reserve(values.size());
  for (double v : values) out.push_back(scale == ChangeScale::log_ratio ? std::log(v) : v / std::fabs(centre));
  return out;
}

std::string nights_text(std::size_t n) { return fmt::format("{} baseline night{}", n, n == 1 ? "" : "s"); }

}  // namespace

ChangeScale scale_of(std::span<const double> values) {
  for (double v : values)
    if (!(v > 0) || !std::isfinite(v)) return ChangeScale::relative;
  return ChangeScale::log_ratio;
}

std::optional<NightSpread> spread_of(std::span<const double> values, ChangeScale scale, std::string basis,
                                     bool robust) {
  if (values.size() < 2) return std::nullopt;
  const double centre = mean(values);
  if (scale == ChangeScale::relative && centre == 0) return std::nullopt;
  const std::vector<double> x = on_scale(values, scale, centre);
  NightSpread s;
  if (robust) {
    const double m = median(x);
    std::vector<double> deviation;
    for (double v : x) deviation.push_back(std::fabs(v - m));
    s.sd = 1.4826 * median(deviation);
  } else {
    s.sd = stddev(x);
  }
  s.degrees_of_freedom = static_cast<double>(values.size()) - 1;
  s.scale = scale;
  s.basis = std::move(basis);
  return s;
}

std::optional<ChangeEvidence> night_evidence(std::span<const double> nights, double value, std::size_t min_nights,
                                             const std::optional<NightSpread>& outside, NoiseFloor floor) {
  if (nights.empty()) return std::nullopt;
  std::vector<double> all(nights.begin(), nights.end());
  all.push_back(value);
  ChangeScale scale = scale_of(all);
  if (outside && outside->scale != scale) return std::nullopt;  // measured on another scale: not comparable
  const double centre = mean(nights);
  if (scale == ChangeScale::relative && centre == 0) return std::nullopt;
  const std::vector<double> x = on_scale(nights, scale, centre);
  const double n = static_cast<double>(nights.size());
  double sum_squares = 0, df = 0;
  std::string basis;
  if (nights.size() >= std::max<std::size_t>(min_nights, 2)) {
    const double s = stddev(x);
    sum_squares += (n - 1) * s * s;
    df += n - 1;
    basis = nights_text(nights.size()) + "' spread";
  }
  if (outside && outside->degrees_of_freedom >= 1) {
    sum_squares += outside->degrees_of_freedom * outside->sd * outside->sd;
    df += outside->degrees_of_freedom;
    basis = basis.empty() ? fmt::format("{}, the spread of {}", nights_text(nights.size()), outside->basis)
                          : basis + " pooled with " + outside->basis;
  }
  if (df < 1) return std::nullopt;
  const double sd = std::sqrt(sum_squares / df);
  // A count of events varies at least as a Poisson count does: sqrt(count)
  // events, one at the least, relative to the count (the same on both scales
  // to first order), the baseline nights' by their mean count and the new
  // night's by its own.
  double sd_nights = sd, sd_new = sd;
  if (floor == NoiseFloor::counting) {
    auto poisson = [](double count) {
      count = std::max(std::fabs(count), 1.0);
      return std::sqrt(count) / count;
    };
    if (!(sd_nights >= poisson(centre)) || !(sd_new >= poisson(value))) basis += " (raised to a count's Poisson spread)";
    sd_nights = std::max(sd_nights, poisson(centre));
    sd_new = std::max(sd_new, poisson(value));
  }
  ChangeEvidence e;
  e.scale = scale;
  e.estimate = scale == ChangeScale::log_ratio ? std::log(value) - mean(x) : (value - centre) / std::fabs(centre);
  e.standard_error = std::sqrt(sd_nights * sd_nights / n + sd_new * sd_new);
  e.degrees_of_freedom = df;
  e.basis = basis;
  return e;
}

}  // namespace harness
