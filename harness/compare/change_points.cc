#include "harness/compare/change_points.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "harness/base/stats.h"

namespace harness {

double difference_noise_scale(std::span<const double> x) {
  if (x.size() < 3) return 0;
  std::vector<double> d(x.size() - 1);
  for (std::size_t i = 1; i < x.size(); ++i) d[i - 1] = x[i] - x[i - 1];
  std::vector<double> abs_d(d.size());
  std::transform(d.begin(), d.end(), abs_d.begin(), [](double v) { return std::fabs(v); });
  double mad = median(abs_d);
  if (mad > 0) return 1.4826 * mad / std::sqrt(2.0);
  double sd = stddev(d);
  return sd > 0 ? sd / std::sqrt(2.0) : 0;
}

namespace {

// Past this many runs the exact search costs too much (PELT's pruning keeps
// every split inside a long stable stretch, so it turns quadratic) and binary
// segmentation with the same cost and penalty takes over: O(n log n), the
// same answer for well separated shifts, possibly fewer for short ones.
constexpr std::size_t kExactUpTo = 2000;

// PELT over prefix sums of the standardised values: the cost of values
// [a, b) is max(0, (s2[b] - s2[a]) - (s1[b] - s1[a])^2 / (b - a)). The
// candidates' best[tau], s1[tau], s2[tau] are kept side by side in arrays, so
// the inner loop (most of the time on a long stable stretch, where PELT
// prunes little) reads them in order and computes each candidate's cost once
// per t, for the minimum and for the pruning. The arithmetic is the cost's,
// operation for operation, so the fit is the same to the last bit.
std::vector<std::size_t> pelt(std::size_t n, std::size_t m, double beta, const std::vector<double>& s1,
                              const std::vector<double>& s2) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> best(n + 1, inf);
  std::vector<std::size_t> last(n + 1, 0);
  best[0] = -beta;
  // The candidate splits tau, each as a double too (exact: tau < 2^53), so
  // that the cost loop is arithmetic on doubles alone and the compiler can
  // run it several candidates at a time (the division dominates; the
  // operations and their order are the same, so the values are too).
  std::vector<std::size_t> at;
  std::vector<double> at_tau, at_best, at_s1, at_s2;  // tau, best[tau], s1[tau], s2[tau]
  std::vector<double> fit;                            // best[tau] + cost(tau, t)
  for (std::size_t t = m; t <= n; ++t) {
    std::size_t fresh = t - m;  // the newest split that leaves >= m values after it
    if (best[fresh] < inf) {
      at.push_back(fresh);
      at_tau.push_back(static_cast<double>(fresh));
      at_best.push_back(best[fresh]);
      at_s1.push_back(s1[fresh]);
      at_s2.push_back(s2[fresh]);
    }
    const std::size_t k_end = at.size();
    fit.resize(k_end);
    const double t1 = s1[t], t2 = s2[t], td = static_cast<double>(t);
    const double* __restrict tau = at_tau.data();
    const double* __restrict b = at_best.data();
    const double* __restrict a1 = at_s1.data();
    const double* __restrict a2 = at_s2.data();
    double* __restrict out = fit.data();
    for (std::size_t k = 0; k < k_end; ++k) {
      const double len = td - tau[k];
      const double sum = t1 - a1[k];
      const double c = (t2 - a2[k]) - sum * sum / len;
      out[k] = b[k] + (c > 0.0 ? c : 0.0);  // std::max(0.0, c), NaN and -0 included
    }
    // The least fit[k] + beta and the first candidate reaching it: what a
    // scan keeping the first strictly smaller value finds, in two passes
    // the processor can overlap (min is exact in any order; a NaN is never
    // taken; nothing below infinity leaves f infinite and arg 0).
    double m0 = inf, m1 = inf, m2 = inf, m3 = inf;
    std::size_t k = 0;
    for (; k + 4 <= k_end; k += 4) {
      m0 = std::min(m0, fit[k] + beta);
      m1 = std::min(m1, fit[k + 1] + beta);
      m2 = std::min(m2, fit[k + 2] + beta);
      m3 = std::min(m3, fit[k + 3] + beta);
    }
    for (; k < k_end; ++k) m0 = std::min(m0, fit[k] + beta);
    const double least = std::min(std::min(m0, m1), std::min(m2, m3));
    double f = inf;
    std::size_t arg = 0;
    if (least < inf) {
      std::size_t j = 0;
      while (!(fit[j] + beta == least)) ++j;
      f = fit[j] + beta;
      arg = at[j];
    }
    best[t] = f;
    last[t] = arg;
    // PELT pruning: a split that is already worse than the best fit up to t
    // (before paying for another change) can never become optimal later.
    // On a stable stretch none is; the arrays are rewritten from the first
    // one that is.
    std::size_t kept = 0;
    while (kept < k_end && fit[kept] <= f) ++kept;
    for (std::size_t k = kept; k < k_end; ++k) {
      if (!(fit[k] <= f)) continue;
      at[kept] = at[k];
      at_tau[kept] = at_tau[k];
      at_best[kept] = at_best[k];
      at_s1[kept] = at_s1[k];
      at_s2[kept] = at_s2[k];
      ++kept;
    }
    at.resize(kept);
    at_tau.resize(kept);
    at_best.resize(kept);
    at_s1.resize(kept);
    at_s2.resize(kept);
  }
  std::vector<std::size_t> splits;
  for (std::size_t t = n; t > 0; t = last[t])
    if (last[t] > 0) splits.push_back(last[t]);
  std::reverse(splits.begin(), splits.end());
  return splits;
}

template <class Cost>
void binary_segmentation(std::size_t a, std::size_t b, std::size_t m, double beta, const Cost& cost,
                         std::vector<std::size_t>& splits) {
  if (b - a < 2 * m) return;
  const double whole = cost(a, b);
  double gain = 0;
  std::size_t at = 0;
  for (std::size_t k = a + m; k + m <= b; ++k) {
    double g = whole - cost(a, k) - cost(k, b);
    if (g > gain) { gain = g; at = k; }
  }
  if (gain <= beta) return;
  splits.push_back(at);
  binary_segmentation(a, at, m, beta, cost, splits);
  binary_segmentation(at, b, m, beta, cost, splits);
}

}  // namespace

std::vector<ChangePoint> find_change_points(std::span<const double> x, ChangePointOptions options) {
  const std::size_t n = x.size();
  const std::size_t m = std::max<std::size_t>(options.min_segment, 1);
  if (n < 2 * m) return {};
  const double sigma = difference_noise_scale(x);
  if (!(sigma > 0)) return {};
  // Prefix sums of the standardised values make a segment's cost O(1);
  // centring first keeps sum(z^2) - sum(z)^2 / n from cancelling away when
  // the level is large against the noise.
  const double centre = mean(x);
  std::vector<double> s1(n + 1, 0), s2(n + 1, 0), raw(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    double z = (x[i] - centre) / sigma;
    s1[i + 1] = s1[i] + z;
    s2[i + 1] = s2[i] + z * z;
    raw[i + 1] = raw[i] + x[i];
  }
  auto cost = [&](std::size_t a, std::size_t b) {  // values [a, b)
    double len = static_cast<double>(b - a);
    double sum = s1[b] - s1[a];
    return std::max(0.0, (s2[b] - s2[a]) - sum * sum / len);
  };
  const double beta = options.penalty_per_ln_n * std::log(static_cast<double>(n));
  std::vector<std::size_t> splits;
  if (n <= kExactUpTo) {
    splits = pelt(n, m, beta, s1, s2);
  } else {
    binary_segmentation(0, n, m, beta, cost, splits);
    std::sort(splits.begin(), splits.end());
  }
  std::vector<ChangePoint> out;
  std::size_t start = 0;
  for (std::size_t k = 0; k < splits.size(); ++k) {
    std::size_t split = splits[k];
    std::size_t end = k + 1 < splits.size() ? splits[k + 1] : n;
    double before = (raw[split] - raw[start]) / static_cast<double>(split - start);
    double after = (raw[end] - raw[split]) / static_cast<double>(end - split);
    out.push_back({split, before, after});
    start = split;
  }
  return out;
}

}  // namespace harness
