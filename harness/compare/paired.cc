#include "harness/compare/paired.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <fmt/format.h>

#include "harness/base/stats.h"

namespace harness {
namespace {

// P(T+ = k) for k = 0..n(n+1)/2 under the null: each rank's sign a fair coin.
std::vector<double> signed_rank_distribution(std::size_t n) {
  const std::size_t top = n * (n + 1) / 2;
  std::vector<double> ways(top + 1, 0.0);
  ways[0] = 1;
  std::size_t reach = 0;
  for (std::size_t rank = 1; rank <= n; ++rank) {
    reach += rank;
    for (std::size_t k = reach; k >= rank; --k) ways[k] += ways[k - rank];
  }
  const double all = std::ldexp(1.0, static_cast<int>(n));
  for (double& w : ways) w /= all;
  return ways;
}

}  // namespace

ChangeEvidence PairedRounds::evidence() const {
  ChangeEvidence e;
  e.estimate = mean_log;
  e.standard_error = rounds ? sd_log / std::sqrt(static_cast<double>(rounds)) : 0;
  e.degrees_of_freedom = static_cast<double>(rounds) - 1;
  e.scale = ChangeScale::log_ratio;
  e.basis = fmt::format("{} paired rounds", rounds);
  if (outliers > 0 && signed_rank_interval(walsh, rounds, 0.5)) {
    e.estimate = hodges_lehmann;
    e.standard_error = mad_sd / std::sqrt(static_cast<double>(rounds));
    e.p = p_wilcoxon;
    const std::vector<double> w = walsh;
    const std::size_t n = rounds;
    const double t_se = sd_log / std::sqrt(static_cast<double>(rounds));
    const double mean = mean_log, df = static_cast<double>(rounds) - 1;
    e.interval = [w, n, t_se, mean, df](double confidence) {
      if (std::optional<std::pair<double, double>> i = signed_rank_interval(w, n, confidence)) return *i;
      // Too few rounds for a distribution-free interval this wide: the t one.
      const double half = boost::math::quantile(boost::math::students_t(std::max(df, 1.0)), 0.5 + confidence / 2) * t_se;
      return std::pair<double, double>(mean - half, mean + half);
    };
    e.basis = fmt::format("{} paired rounds, {} far from the others: the signed-rank estimate and interval", rounds,
                          outliers);
  }
  return e;
}

std::optional<std::pair<double, double>> signed_rank_interval(std::span<const double> walsh, std::size_t n,
                                                              double confidence) {
  if (n < 2 || walsh.size() != n * (n + 1) / 2) return std::nullopt;
  const double tail = (1 - confidence) / 2;
  std::size_t k = 0;  // the largest k (1-based) with P(T+ <= k - 1) <= tail
  if (n <= 1000) {  // the exact distribution: 2^1000 still fits a double
    const std::vector<double> pmf = signed_rank_distribution(n);
    double below = 0;  // P(T+ <= k - 1)
    while (k < pmf.size() && below + pmf[k] <= tail) below += pmf[k++];
  } else {
    const double nn = static_cast<double>(n);
    const double z = boost::math::quantile(boost::math::normal(), 1 - tail);
    const double c = nn * (nn + 1) / 4 - z * std::sqrt(nn * (nn + 1) * (2 * nn + 1) / 24);
    k = c > 0 ? static_cast<std::size_t>(std::floor(c)) : 0;
  }
  if (k == 0 || k > walsh.size() / 2) return std::nullopt;
  return std::pair<double, double>(walsh[k - 1], walsh[walsh.size() - k]);
}

double wilcoxon_signed_rank_p(std::span<const double> d) {
  std::vector<double> nonzero;
  for (double x : d)
    if (x != 0) nonzero.push_back(x);
  const std::size_t n = nonzero.size();
  if (n == 0) return 1;
  // Ranks of |d| with ties given their mean rank.
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return std::fabs(nonzero[a]) < std::fabs(nonzero[b]); });
  std::vector<double> rank(n);
  double tie_term = 0;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j + 1 < n && std::fabs(nonzero[order[j + 1]]) == std::fabs(nonzero[order[i]])) ++j;
    const double shared = (static_cast<double>(i + j) + 2) / 2;
    for (std::size_t k = i; k <= j; ++k) rank[order[k]] = shared;
    const double t = static_cast<double>(j - i + 1);
    tie_term += t * (t * t - 1);
    i = j + 1;
  }
  double r_plus = 0, r_minus = 0;
  for (std::size_t i = 0; i < n; ++i) (nonzero[i] > 0 ? r_plus : r_minus) += rank[i];
  // As SciPy 1.10 decides: exact up to 50 differences without zeros; with
  // tied magnitudes it still takes the exact table at the truncated rank sum.
  const bool exact = d.size() <= 50 && n == d.size();
  if (exact) {
    const std::vector<double> pmf = signed_rank_distribution(n);
    const auto r = static_cast<std::size_t>(r_plus);
    if (r == (pmf.size() - 1) / 2) return 1.0;  // the centre, as SciPy has it
    double less = 0, greater = 0;
    for (std::size_t k = 0; k <= r; ++k) less += pmf[k];
    for (std::size_t k = r; k < pmf.size(); ++k) greater += pmf[k];
    return std::min(1.0, 2 * std::min(less, greater));
  }
  const double nn = static_cast<double>(n);
  const double t = std::min(r_plus, r_minus);
  const double mean_t = nn * (nn + 1) / 4;
  const double var = (nn * (nn + 1) * (2 * nn + 1) - tie_term / 2) / 24;
  if (!(var > 0)) return 1;
  const double z = (t - mean_t) / std::sqrt(var);
  const boost::math::normal normal;
  return std::clamp(2 * boost::math::cdf(boost::math::complement(normal, std::fabs(z))), 0.0, 1.0);
}

std::optional<PairedRounds> paired_rounds(std::span<const double> ratios) {
  if (ratios.size() < 2) return std::nullopt;
  std::vector<double> logs;
  logs.reserve(ratios.size());
  for (double r : ratios) {
    if (!(r > 0) || !std::isfinite(r)) return std::nullopt;
    logs.push_back(std::log(r));
  }
  PairedRounds p;
  p.rounds = logs.size();
  p.mean_log = mean(logs);
  p.sd_log = stddev(logs);
  const double se = p.sd_log / std::sqrt(static_cast<double>(p.rounds));
  if (se > 0) {
    p.t = p.mean_log / se;
    const boost::math::students_t dist(static_cast<double>(p.rounds) - 1);
    p.p_t = std::clamp(2 * boost::math::cdf(boost::math::complement(dist, std::fabs(p.t))), 0.0, 1.0);
  } else {
    p.t = p.mean_log == 0 ? 0 : std::copysign(INFINITY, p.mean_log);
    p.p_t = p.mean_log == 0 ? 1 : 0;
  }
  p.p_wilcoxon = wilcoxon_signed_rank_p(logs);
  // Far from normal? Rounds beyond 4 robust standard deviations.
  std::vector<double> sorted = logs;
  std::sort(sorted.begin(), sorted.end());
  const double centre = percentile_sorted(sorted, 50);
  std::vector<double> deviation;
  for (double l : logs) deviation.push_back(std::fabs(l - centre));
  p.mad_sd = 1.4826 * median(deviation);
  for (double l : logs) p.outliers += p.mad_sd > 0 && std::fabs(l - centre) > 4 * p.mad_sd;
  for (std::size_t i = 0; i < logs.size(); ++i)
    for (std::size_t j = i; j < logs.size(); ++j) p.walsh.push_back((logs[i] + logs[j]) / 2);
  std::sort(p.walsh.begin(), p.walsh.end());
  p.hodges_lehmann = percentile_sorted(p.walsh, 50);
  return p;
}

}  // namespace harness
