#include "harness/compare/change_points.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <tuple>
#include <utility>

#include "harness/base/stats.h"
#include "harness/compare/change_point_search.h"

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

namespace change_point_search {

namespace {

// The splits of the best fit, oldest first, from the last change before
// each t (last[t], 0 for none; t up to n = last.size() - 1).
std::vector<std::size_t> splits_from(const std::vector<std::size_t>& last) {
  std::vector<std::size_t> splits;
  for (std::size_t t = last.size() - 1; t > 0; t = last[t])
    if (last[t] > 0) splits.push_back(last[t]);
  std::reverse(splits.begin(), splits.end());
  return splits;
}

// PELT (the search before fpop, kept as the reference for it and for
// non-finite sums) and, with kPrune false, optimal partitioning (every split
// tried at every t: the unpruned search, for short series) over prefix sums
// of the standardised values: the cost of values [a, b) is
// max(0, (s2[b] - s2[a]) - (s1[b] - s1[a])^2 / (b - a)). The candidates'
// best[tau], s1[tau], s2[tau] are kept side by side in arrays, so the inner
// loop (most of the time on a long stable stretch, where PELT prunes little)
// reads them in order and computes each candidate's cost once per t, for the
// minimum and for the pruning. The arithmetic is the cost's, operation for
// operation, so the fit is the same to the last bit.
template <bool kPrune>
std::vector<std::size_t> pelt_or_unpruned(const Problem& problem) {
  const std::size_t n = problem.size(), m = problem.min_segment;
  const double beta = problem.penalty;
  const std::vector<double>& s1 = problem.s1;
  const std::vector<double>& s2 = problem.s2;
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
    // (before paying for another change) can never become optimal once t is
    // a candidate, i.e. from t + m on; dropping it now is exact only for
    // m = 1 (change_point_search.h). On a stable stretch none is; the arrays
    // are rewritten from the first one that is.
    if (!kPrune) continue;
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
  return splits_from(last);
}

// Infinite or NaN sums (an infinite or NaN value, or squares past the range
// of a double) or penalty: PELT's answer, whatever its arithmetic makes of
// them, stays the answer (change_points_test pins it: no change), and fpop's
// margin would mean nothing. So too when a squared sum of a segment could
// overflow (it is below n s2[n]): values some 1e150 times their noise.
bool finite(const Problem& p) {
  const double n1 = static_cast<double>(p.size() + 1);
  const double scale = p.s2[p.size()] + n1 * std::fabs(p.penalty);  // NaN if either is
  return std::isfinite(p.s1[p.size()]) && std::isfinite(4 * n1 * scale);
}

}  // namespace

std::vector<std::size_t> pelt(const Problem& problem) { return pelt_or_unpruned<true>(problem); }

std::vector<std::size_t> unpruned(const Problem& problem) { return pelt_or_unpruned<false>(problem); }

// Functional pruning (FPOP: Maidstone, Hocking, Rigaill & Fearnhead 2017, "On
// optimal multiple changepoint algorithms for large data"), for this cost.
//
// Candidate s (the last change before the current segment) has, at time t,
// the cost as a function of the current segment's mean mu
//   q_s(mu) = F(s) + sum over i in [s, t) of (z_i - mu)^2
//           = g_s(mu) + (s2[t] - 2 mu s1[t] + t mu^2),
//   g_s(mu) = F(s) - s2[s] + 2 mu s1[s] - s mu^2,
// and its fit is min over mu of q_s = F(s) + cost(s, t). The part in
// brackets is the same for every candidate, so which candidate is least at a
// given mu does not depend on t: if for every mu some candidate already
// entered has g <= g_s, s can never be the least again, and is dropped. (The
// candidates entered by t are all <= t - m, so they are candidates at every
// later time too: the minimum segment length costs nothing here.) The lower
// envelope of the g's is kept as pieces of the mu axis, each owned by one
// candidate (an index and two ends; the quadratic comes from the prefix sums).
// When candidate n enters, for each alive r < n
//   d(mu) = g_n(mu) - g_r(mu) = h - D (mu - c)^2,
//   D = n - r,  c = (s1[n] - s1[r]) / D,  h = F(n) - F(r) - cost(r, n)
// (the cost without the max(0, .)), a parabola opening down: n is lower than
// r outside an interval around c, so each piece of r splits into at most
// three (n, r, n).
//
// Rounding: the envelope only decides who survives; the fit and its argmin
// are computed over the survivors exactly as pelt computes them, the same
// expression and the same rule (the first candidate, in order of the split,
// reaching the least value). For that to be the same result, a dropped
// candidate's computed fit must be strictly above some survivor's, at every
// later t. So the comparisons carry a margin delta: r keeps the mu where
// g_r <= g_n + delta, n takes the mu where g_n <= g_r + delta (the two overlap
// by slivers, and every mu stays covered), and r goes only when it keeps no
// mu. Then at every mu a candidate does not cover, some owner of a piece
// there is more than delta below it (by induction: an owner loses a mu only
// to a newcomer more than delta below it, and a newcomer is left out only
// where every owner is more than delta below it). So at a dropped
// candidate's own best mu, and hence in fit, some alive owner is more than
// delta below it: its fit is above that owner's, so it is never the least,
// nor the first to reach it. The rounding that margin must cover, in
// units of eps = 2^-53 times S = s2[n] + (n + 1) |beta| (every F, every
// s2[t], every (s1 difference)^2 / length, and the g's at the ends of the
// pieces where they matter are below S): a fit's own arithmetic, below
// (4 sqrt(n) + 4) each; the prefix sums' inconsistency, which can make the
// exact cost of a constant stretch a little negative where max(0, .) lifts
// it, below 3 n (n roundings of s1 and s2 at most, worst case); the ends of
// the pieces and the test at them, below 20. In all less than 4 (n + 16);
// delta is 16 (n + 16) eps S, four times that (4e-13 S for 366 values, 4e-11
// S for 20,000). A larger margin would only keep candidates longer: on
// values far apart against their noise (declared figures that step now and
// then) S is large and ties within delta keep their candidates alive.
namespace {

// fpop's alive candidates, in order of the split, side by side as in pelt:
// the split, as a double, best[], s1[], s2[] (at most n + 1 of them); and
// the lower envelope of their g's, as pieces of the mu axis each owned by
// one of them.
struct Envelope {
  struct Piece {
    double lo, hi;        // closed; lo < hi
    std::uint32_t owner;  // index into the alive arrays
  };

  Envelope(std::size_t n, double margin);  // margin: delta, as derived above
  // Candidate `fresh` enters at step t, with its best[], s1[] and s2[]: it
  // takes the mu where it is lowest, and those left without a piece go.
  void enter(std::size_t t, std::size_t fresh, double fn, double n1, double n2);
  // Each piece of r split for the newcomer (the candidate at k_end).
  void split_pieces(std::size_t t, std::size_t k_end);
  // The mu r keeps against the newcomer, and the hole where the newcomer takes nothing.
  void find_keep_and_hole(std::uint32_t r);
  // Drop the candidates that own no piece, keeping the order of the split.
  void drop_unowned();
  // pelt's fit at t, candidate by candidate, and the first one strictly
  // below all before it: the first reaching the least, as pelt's two
  // passes find. (inf, 0) with no candidate.
  std::pair<double, std::size_t> best_fit(const Problem& problem, std::size_t t) const;

  const double delta;
  const std::size_t cap;
  // Per alive r while a candidate enters: d(mu) = g_fresh - g_r =
  // coef + mu (2 sum - dist mu); the mu r keeps, [keep_lo, keep_hi]; the hole
  // (hole_lo, hole_hi) where the newcomer takes nothing (empty: lo > hi);
  // the step whose newcomer these were computed for; the pieces r owns after.
  // Uninitialised (only what is written is read): a series of 366 values
  // would otherwise spend a tenth of its search zeroing them.
  std::unique_ptr<double[]> reals;
  std::unique_ptr<std::size_t[]> counts;
  std::unique_ptr<std::uint32_t[]> slots;
  double *tau, *fb, *a1, *a2;
  double *coef, *sum_d, *dist;
  double *keep_lo, *keep_hi, *hole_lo, *hole_hi;
  std::size_t *at, *rooted;
  std::uint32_t *owned, *slot;
  std::size_t alive = 0;
  // Two buffers used up to a count (never shrunk): the pieces, and the next.
  std::vector<Piece> pieces, next;
  std::size_t np = 0;
};

Envelope::Envelope(std::size_t n, double margin)
    : delta(margin),
      cap(n + 2),
      reals(std::make_unique_for_overwrite<double[]>(11 * cap)),
      counts(std::make_unique_for_overwrite<std::size_t[]>(2 * cap)),
      slots(std::make_unique_for_overwrite<std::uint32_t[]>(2 * cap)),
      pieces(8),
      next(8) {
  tau = reals.get(), fb = tau + cap, a1 = fb + cap, a2 = a1 + cap;
  coef = a2 + cap, sum_d = coef + cap, dist = sum_d + cap;
  keep_lo = dist + cap, keep_hi = keep_lo + cap, hole_lo = keep_hi + cap, hole_hi = hole_lo + cap;
  at = counts.get(), rooted = at + cap;
  owned = slots.get(), slot = owned + cap;
  std::fill(rooted, rooted + cap, 0);
}

void Envelope::enter(std::size_t t, std::size_t fresh, double fn, double n1, double n2) {
  const double nd = static_cast<double>(fresh);
  const std::size_t k_end = alive;
  at[alive] = fresh;
  tau[alive] = nd;
  fb[alive] = fn;
  a1[alive] = n1;
  a2[alive] = n2;
  ++alive;
  if (k_end == 0) {
    const double inf = std::numeric_limits<double>::infinity();
    pieces[0] = Piece{-inf, inf, 0};
    np = 1;
    return;
  }
  for (std::size_t k = 0; k < k_end; ++k) {
    dist[k] = nd - tau[k];
    sum_d[k] = n1 - a1[k];
    coef[k] = (fn - fb[k]) - (n2 - a2[k]);
    owned[k] = 0;
  }
  owned[k_end] = 0;
  split_pieces(t, k_end);
  drop_unowned();
}

// Each piece [lo, hi] of r becomes the newcomer's part left of the hole,
// r's kept part, the newcomer's part right of the hole (each dropped when
// empty or a single point, which the other part then covers). A piece where
// d > delta at both (finite) ends lies in the hole (d is concave) and stays
// r's whole: most pieces, found without a division. The pieces are in order
// of lo, overlapping by slivers at most, so the newcomer's parts join the
// last one it has when they touch.
void Envelope::split_pieces(std::size_t t, std::size_t k_end) {
  constexpr std::size_t none = std::numeric_limits<std::size_t>::max();
  if (next.size() < 3 * np + 1) next.resize(6 * np + 2);
  Piece* out = next.data();
  std::size_t q = 0, last_fresh = none;
  const auto fresh_owner = static_cast<std::uint32_t>(k_end);
  auto take = [&](double lo, double hi) {
    if (!(lo < hi)) return;
    if (last_fresh != none && out[last_fresh].hi >= lo && lo >= out[last_fresh].lo) {
      out[last_fresh].hi = std::max(out[last_fresh].hi, hi);
      return;
    }
    last_fresh = q;
    out[q++] = Piece{lo, hi, fresh_owner};
    ++owned[fresh_owner];
  };
  for (std::size_t i = 0; i < np; ++i) {
    const Piece p = pieces[i];
    const std::uint32_t r = p.owner;
    const double c0 = coef[r], twice_sum = 2 * sum_d[r], d = dist[r];
    // (an infinite end gives -inf: a tail is always looked at)
    if (c0 + p.lo * (twice_sum - d * p.lo) > delta && c0 + p.hi * (twice_sum - d * p.hi) > delta) {
      out[q++] = p;
      ++owned[r];
      continue;
    }
    if (rooted[r] != t) {
      rooted[r] = t;
      find_keep_and_hole(r);
    }
    const bool hole = hole_lo[r] <= hole_hi[r];
    take(p.lo, hole ? std::min(p.hi, hole_lo[r]) : p.hi);
    const double lo = std::max(p.lo, keep_lo[r]), hi = std::min(p.hi, keep_hi[r]);
    if (lo < hi) {
      out[q++] = Piece{lo, hi, r};
      ++owned[r];
    }
    if (hole) take(std::max(p.lo, hole_hi[r]), p.hi);
  }
  pieces.swap(next);
  np = q;
}

// d(mu) = h - dist (mu - c)^2, h = F(fresh) - F(r) - cost(r, fresh).
void Envelope::find_keep_and_hole(std::uint32_t r) {
  const double inf = std::numeric_limits<double>::infinity();
  const double inv = 1 / dist[r];
  const double c = sum_d[r] * inv;
  const double h = coef[r] + sum_d[r] * c;
  if (h + delta >= 0) {
    const double w = std::sqrt((h + delta) * inv);
    keep_lo[r] = c - w;
    keep_hi[r] = c + w;
  } else {
    keep_lo[r] = inf;
    keep_hi[r] = -inf;
  }
  if (h - delta > 0) {
    const double w = std::sqrt((h - delta) * inv);
    hole_lo[r] = c - w;
    hole_hi[r] = c + w;
  } else {
    hole_lo[r] = inf;
    hole_hi[r] = -inf;
  }
}

void Envelope::drop_unowned() {
  std::uint32_t kept = 0;
  for (std::size_t k = 0; k < alive; ++k) {
    if (owned[k] == 0) continue;
    slot[k] = kept;
    at[kept] = at[k];
    tau[kept] = tau[k];
    fb[kept] = fb[k];
    a1[kept] = a1[k];
    a2[kept] = a2[k];
    ++kept;
  }
  if (kept != alive) {
    for (std::size_t i = 0; i < np; ++i) pieces[i].owner = slot[pieces[i].owner];
    alive = kept;
  }
}

std::pair<double, std::size_t> Envelope::best_fit(const Problem& problem, std::size_t t) const {
  const double beta = problem.penalty;
  const double t1 = problem.s1[t], t2 = problem.s2[t], td = static_cast<double>(t);
  double f = std::numeric_limits<double>::infinity();
  std::size_t arg = 0;
  for (std::size_t k = 0; k < alive; ++k) {
    const double len = td - tau[k];
    const double sum = t1 - a1[k];
    const double c = (t2 - a2[k]) - sum * sum / len;
    const double fit = fb[k] + (c > 0.0 ? c : 0.0);
    if (fit + beta < f) {
      f = fit + beta;
      arg = at[k];
    }
  }
  return {f, arg};
}

}  // namespace

std::vector<std::size_t> fpop(const Problem& problem, FpopTally* tally) {
  const std::size_t n = problem.size(), m = problem.min_segment;
  const double beta = problem.penalty;
  const std::vector<double>& s1 = problem.s1;
  const std::vector<double>& s2 = problem.s2;
  const double inf = std::numeric_limits<double>::infinity();
  if (!finite(problem)) return pelt(problem);
  const double nd_all = static_cast<double>(n);
  const double delta = 16 * (nd_all + 16) * (std::numeric_limits<double>::epsilon() / 2) *
                       (s2[n] + (nd_all + 1) * std::fabs(beta));

  std::vector<double> best(n + 1, inf);
  std::vector<std::size_t> last(n + 1, 0);
  best[0] = -beta;
  Envelope envelope(n, delta);
  for (std::size_t t = m; t <= n; ++t) {
    const std::size_t fresh = t - m;  // the newest split that leaves >= m values after it
    if (best[fresh] < inf) envelope.enter(t, fresh, best[fresh], s1[fresh], s2[fresh]);
    if (tally) {
      tally->peak_candidates = std::max(tally->peak_candidates, envelope.alive);
      tally->peak_pieces = std::max(tally->peak_pieces, envelope.np);
    }
    std::tie(best[t], last[t]) = envelope.best_fit(problem, t);
  }
  return splits_from(last);
}

// Below this many values the unpruned search (quadratic, but a tight loop)
// costs less than fpop's envelope; the two are even at about 128 values
// (scripts/bench-change-points, 2026-12-02). Both give the optimum.
constexpr std::size_t kFpopFrom = 128;

std::vector<std::size_t> exact(const Problem& problem) {
  if (!finite(problem)) return pelt(problem);
  return problem.size() < kFpopFrom ? unpruned(problem) : fpop(problem);
}

std::optional<Problem> standardised(std::span<const double> x, const ChangePointOptions& options) {
  const std::size_t n = x.size();
  const std::size_t m = std::max<std::size_t>(options.min_segment, 1);
  if (n < 2 * m) return std::nullopt;
  // The rig's measured spread between nights (its calibration) is the least
  // noise a night has: nights that drift in phases (a shared VM) show small
  // differences between neighbours, and their phases are no level shifts.
  const double sigma = std::max(difference_noise_scale(x), options.min_sigma);
  if (!(sigma > 0)) return std::nullopt;
  // Prefix sums of the standardised values make a segment's cost O(1);
  // centring first keeps sum(z^2) - sum(z)^2 / n from cancelling away when
  // the level is large against the noise.
  const double centre = mean(x);
  Problem p;
  p.min_segment = m;
  p.penalty = options.penalty_per_ln_n * std::log(static_cast<double>(n));
  p.s1.assign(n + 1, 0);
  p.s2.assign(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    double z = (x[i] - centre) / sigma;
    p.s1[i + 1] = p.s1[i] + z;
    p.s2[i + 1] = p.s2[i] + z * z;
  }
  return p;
}

}  // namespace change_point_search

namespace {

// Past this many runs binary segmentation with the same cost and penalty
// takes over: O(n log n), the same answer for well separated shifts,
// possibly fewer for short ones. The exact search (fpop) takes about 4 ms
// for 20,000 stable values, 1.5 to 6 ms for a drift, heavy tails with steps,
// repeats or constant stretches (scripts/bench-change-points, on a busy
// 2-CPU VM); its worst case is still quadratic, so a bound stays. (It was
// 2,000 with PELT, whose pruning keeps every split of a stable stretch.)
constexpr std::size_t kExactUpTo = 20000;

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
  std::optional<change_point_search::Problem> problem = change_point_search::standardised(x, options);
  if (!problem) return {};
  const std::vector<double>& s1 = problem->s1;
  const std::vector<double>& s2 = problem->s2;
  auto cost = [&](std::size_t a, std::size_t b) {  // values [a, b)
    double len = static_cast<double>(b - a);
    double sum = s1[b] - s1[a];
    return std::max(0.0, (s2[b] - s2[a]) - sum * sum / len);
  };
  std::vector<std::size_t> splits;
  if (n <= kExactUpTo) {
    splits = change_point_search::exact(*problem);
  } else {
    binary_segmentation(0, n, problem->min_segment, problem->penalty, cost, splits);
    std::sort(splits.begin(), splits.end());
  }
  std::vector<double> raw(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) raw[i + 1] = raw[i] + x[i];
  auto shifts = [&] {
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
  };
  // A step smaller than the least change that counts is no level shift: the
  // smallest goes first, its neighbours merge, until every step counts.
  std::vector<ChangePoint> out = shifts();
  while (options.min_relative_shift > 0 && !out.empty()) {
    std::size_t smallest = 0;
    double least = INFINITY;
    for (std::size_t k = 0; k < out.size(); ++k) {
      const double rel = out[k].before != 0 ? std::fabs(out[k].after - out[k].before) / std::fabs(out[k].before)
                                            : INFINITY;
      if (rel < least) least = rel, smallest = k;
    }
    if (least >= options.min_relative_shift) break;
    splits.erase(splits.begin() + static_cast<std::ptrdiff_t>(smallest));
    out = shifts();
  }
  return out;
}

}  // namespace harness
