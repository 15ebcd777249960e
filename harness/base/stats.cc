#include "harness/base/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <boost/math/distributions/binomial.hpp>

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

std::optional<QuantileInterval> quantile_interval_ranks(std::size_t n, double q, double confidence) {
  if (n == 0 || !(q > 0 && q < 1) || !(confidence > 0 && confidence < 1)) return std::nullopt;
  // B = number of samples below the true quantile ~ Binomial(n, q).
  // [x_(l), x_(u)] covers it when l <= B < u, with probability
  // F(u - 1) - F(l - 1). Each tail gets at most (1 - confidence) / 2.
  boost::math::binomial_distribution<double> b(static_cast<double>(n), q);
  const double tail = (1 - confidence) / 2;
  auto cdf = [&](std::size_t k) { return boost::math::cdf(b, static_cast<double>(k)); };
  // Largest l >= 1 with F(l - 1) <= tail (the CDF rises with k: bisect).
  if (cdf(0) > tail) return std::nullopt;
  std::size_t lo = 1, hi = n;  // F(lo - 1) <= tail holds
  while (lo < hi) {
    std::size_t mid = lo + (hi - lo + 1) / 2;
    if (cdf(mid - 1) <= tail) lo = mid; else hi = mid - 1;
  }
  const std::size_t l = lo;
  // Smallest u <= n with F(u - 1) >= 1 - tail.
  if (cdf(n - 1) < 1 - tail) return std::nullopt;
  lo = l;
  hi = n;  // F(hi - 1) >= 1 - tail holds
  while (lo < hi) {
    std::size_t mid = lo + (hi - lo) / 2;
    if (cdf(mid - 1) >= 1 - tail) hi = mid; else lo = mid + 1;
  }
  const std::size_t u = hi;
  QuantileInterval r;
  r.lower_rank = l;
  r.upper_rank = u;
  r.coverage = cdf(u - 1) - cdf(l - 1);
  return r;
}

std::optional<QuantileInterval> quantile_interval_sorted(std::span<const double> sorted, double q,
                                                         double confidence) {
  std::optional<QuantileInterval> r = quantile_interval_ranks(sorted.size(), q, confidence);
  if (!r) return r;
  r->low = sorted[r->lower_rank - 1];
  r->high = sorted[r->upper_rank - 1];
  return r;
}

std::size_t min_samples_for_quantile(double q, double confidence) {
  if (!(q > 0 && q < 1) || !(confidence > 0 && confidence < 1)) return 0;
  // Both ends must fit: (1 - q)^n <= tail and q^n <= tail.
  const double tail = (1 - confidence) / 2;
  std::size_t n = static_cast<std::size_t>(
      std::ceil(std::max(std::log(tail) / std::log1p(-q), std::log(tail) / std::log(q))));
  // Guard against rounding at the boundary: step to the exact smallest n.
  while (n > 1 && quantile_interval_ranks(n - 1, q, confidence)) --n;
  while (!quantile_interval_ranks(n, q, confidence)) ++n;
  return n;
}

}  // namespace harness
