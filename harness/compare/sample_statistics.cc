#include "harness/compare/sample_statistics.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>

#include "harness/base/stats.h"

namespace harness {
namespace {

constexpr double kZ95 = 1.959963984540054;

struct QuantileEstimate {
  double value = 0;
  double se = 0;
};

std::optional<QuantileEstimate> quantile_estimate(std::span<const double> s, double q) {
  const double n = static_cast<double>(s.size());
  if (n * q * (1 - q) < 5) return std::nullopt;
  const double half = kZ95 * std::sqrt(n * q * (1 - q));
  auto at = [&](double rank) {
    double r = std::clamp(rank, 0.0, n - 1);
    return s[static_cast<std::size_t>(r)];
  };
  QuantileEstimate e;
  e.value = percentile_sorted(s, 100 * q);
  e.se = (at(std::ceil(n * q + half)) - at(std::floor(n * q - half))) / (2 * kZ95);
  return e;
}

}  // namespace

std::optional<double> quantile_difference_p(std::span<const double> x, std::span<const double> y, double q) {
  std::optional<QuantileEstimate> a = quantile_estimate(x, q), b = quantile_estimate(y, q);
  if (!a || !b) return std::nullopt;
  const double se = std::sqrt(a->se * a->se + b->se * b->se);
  if (!(se > 0)) return a->value == b->value ? 1.0 : 0.0;
  const double z = std::fabs(b->value - a->value) / se;
  return std::clamp(2 * boost::math::cdf(boost::math::complement(boost::math::normal(), z)), 0.0, 1.0);
}

std::optional<double> welch_t_p(std::span<const double> x, std::span<const double> y) {
  if (x.size() < 2 || y.size() < 2) return std::nullopt;
  const double nx = static_cast<double>(x.size()), ny = static_cast<double>(y.size());
  const double vx = stddev(x) * stddev(x) / nx, vy = stddev(y) * stddev(y) / ny;
  const double diff = mean(y) - mean(x);
  if (!(vx + vy > 0)) return diff == 0 ? 1.0 : 0.0;
  const double t = diff / std::sqrt(vx + vy);
  const double df = (vx + vy) * (vx + vy) / (vx * vx / (nx - 1) + vy * vy / (ny - 1));
  const boost::math::students_t dist(df);
  return std::clamp(2 * boost::math::cdf(boost::math::complement(dist, std::fabs(t))), 0.0, 1.0);
}

std::optional<double> percentile_of_statistic(std::string_view name) {
  if (name == "median") return 50.0;
  if (name.size() < 2 || name[0] != 'p' || name.find_first_not_of("0123456789.", 1) != std::string_view::npos)
    return std::nullopt;
  double v = 0;
  auto [end, ec] = std::from_chars(name.data() + 1, name.data() + name.size(), v);
  if (ec != std::errc() || end != name.data() + name.size() || !(v > 0 && v < 100)) return std::nullopt;
  return v;
}

std::optional<double> statistic_of_sorted(std::span<const double> sorted, std::string_view name) {
  if (sorted.empty()) return std::nullopt;
  if (std::optional<double> p = percentile_of_statistic(name)) return percentile_sorted(sorted, *p);
  if (name == "mean") return mean(sorted);
  if (name == "stddev") return sorted.size() > 1 ? std::optional<double>(stddev(sorted)) : std::nullopt;
  if (name == "min") return sorted.front();
  if (name == "max") return sorted.back();
  if (std::size_t over = name.find("_over_"); over != std::string_view::npos) {
    std::optional<double> a = percentile_of_statistic(name.substr(0, over));
    std::optional<double> b = percentile_of_statistic(name.substr(over + 6));
    if (!a || !b) return std::nullopt;
    const double denominator = percentile_sorted(sorted, *b);
    if (denominator == 0) return std::nullopt;
    return percentile_sorted(sorted, *a) / denominator;
  }
  return std::nullopt;
}

}  // namespace harness
