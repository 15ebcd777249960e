#include "harness/compare/noise_band.h"

#include <algorithm>
#include <cmath>

#include <boost/math/distributions/students_t.hpp>

#include "harness/base/stats.h"

namespace harness {

NoiseFloor noise_floor_of_unit(std::string_view unit) {
  return unit == "events" ? NoiseFloor::counting : NoiseFloor::none;
}

std::optional<NoiseBand> noise_band(std::span<const double> history, double value, std::size_t min_runs,
                                    NoiseFloor floor) {
  if (history.size() < std::max<std::size_t>(min_runs, 3)) return std::nullopt;
  NoiseBand b;
  b.runs = history.size();
  b.mean = mean(history);
  b.sd = stddev(history);
  if (floor == NoiseFloor::counting) {
    const double poisson = std::sqrt(std::max(std::fabs(b.mean), 1.0));
    if (!(b.sd >= poisson)) b.sd = poisson, b.counting_floor = true;
  }
  const double n = static_cast<double>(b.runs);
  if (!(b.sd > 0)) {
    b.t = value == b.mean ? 0 : (value > b.mean ? INFINITY : -INFINITY);
    b.p = value == b.mean ? 1 : 0;
    return b;
  }
  b.t = (value - b.mean) / (b.sd * std::sqrt(1 + 1 / n));
  const boost::math::students_t dist(n - 1);
  b.p = std::clamp(2 * boost::math::cdf(boost::math::complement(dist, std::fabs(b.t))), 0.0, 1.0);
  return b;
}

}  // namespace harness
