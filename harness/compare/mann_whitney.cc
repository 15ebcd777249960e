#include "harness/compare/mann_whitney.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <boost/math/distributions/normal.hpp>
#include <boost/sort/spreadsort/float_sort.hpp>

namespace harness {

MannWhitney mann_whitney_u_sorted(std::span<const double> x, std::span<const double> y) {
  const double n1 = static_cast<double>(x.size());
  const double n2 = static_cast<double>(y.size());
  const double n = n1 + n2;
  // Walk both sorted samples as one merged sequence, giving each run of equal
  // values its average rank; the tie term sum(t^3 - t) shrinks the variance.
  double rank_sum_x = 0, tie_term = 0;
  std::size_t i = 0, j = 0;
  double next_rank = 1;  // rank of the next position in the merged order
  while (i < x.size() || j < y.size()) {
    double v = (j == y.size() || (i < x.size() && x[i] <= y[j])) ? x[i] : y[j];
    std::size_t cx = 0, cy = 0;
    while (i < x.size() && x[i] == v) { ++i; ++cx; }
    while (j < y.size() && y[j] == v) { ++j; ++cy; }
    double t = static_cast<double>(cx + cy);
    double average_rank = next_rank + (t - 1) / 2;
    rank_sum_x += average_rank * static_cast<double>(cx);
    tie_term += t * t * t - t;
    next_rank += t;
  }
  MannWhitney r;
  r.u = rank_sum_x - n1 * (n1 + 1) / 2;
  const double u_max = std::max(r.u, n1 * n2 - r.u);
  const double mu = n1 * n2 / 2;
  const double sigma = std::sqrt(n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1))));
  if (!(sigma > 0)) {  // every value equal: no evidence of any difference
    r.z = 0;
    r.p = 1;
    return r;
  }
  r.z = (u_max - mu - 0.5) / sigma;
  const boost::math::normal standard;
  r.p = std::clamp(2 * boost::math::cdf(boost::math::complement(standard, r.z)), 0.0, 1.0);
  return r;
}

MannWhitney mann_whitney_u(std::vector<double> x, std::vector<double> y) {
  boost::sort::spreadsort::float_sort(x.begin(), x.end());
  boost::sort::spreadsort::float_sort(y.begin(), y.end());
  return mann_whitney_u_sorted(x, y);
}

}  // namespace harness

namespace harness {
namespace {

// Number of pairs with y_j - x_i <= d, i.e. x_i >= y_j - d.
std::uint64_t pairs_at_most(std::span<const double> x, std::span<const double> y, double d) {
  std::uint64_t count = 0;
  std::size_t i = 0;  // first x not below y_j - d; moves up as y_j does
  for (double yj : y) {
    const double t = yj - d;
    while (i < x.size() && x[i] < t) ++i;
    count += x.size() - i;
  }
  return count;
}

}  // namespace

double hodges_lehmann_shift_sorted(std::span<const double> x, std::span<const double> y, double tolerance) {
  const std::uint64_t total = static_cast<std::uint64_t>(x.size()) * y.size();
  const std::uint64_t half = (total + 1) / 2;  // the lower median of the differences
  auto mid = [](std::span<const double> s) { return s[s.size() / 2]; };
  // Start around the difference of medians, a step of about a standard
  // error either side, and widen until the median difference is inside.
  const double guess = mid(y) - mid(x);
  const double spread = (x[x.size() * 3 / 4] - x[x.size() / 4]) + (y[y.size() * 3 / 4] - y[y.size() / 4]);
  double step = std::max(tolerance, spread / std::sqrt(static_cast<double>(std::min(x.size(), y.size()))));
  double lo = guess - step, hi = guess + step;
  const double widest = (y.back() - x.front()) - (y.front() - x.back());
  while (pairs_at_most(x, y, lo) >= half && step <= 2 * widest + tolerance) { step *= 2; lo = guess - step; }
  while (pairs_at_most(x, y, hi) < half && step <= 2 * widest + tolerance) { step *= 2; hi = guess + step; }
  tolerance = std::max(tolerance, 1e-300);
  while (hi - lo > tolerance) {
    double m = lo + (hi - lo) / 2;
    if (m <= lo || m >= hi) break;  // no double between: as close as it gets
    if (pairs_at_most(x, y, m) >= half) hi = m;
    else lo = m;
  }
  return lo + (hi - lo) / 2;
}

}  // namespace harness
