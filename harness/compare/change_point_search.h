// The exact searches behind find_change_points (change_points.h), declared
// apart so that the tests can hold the functional pruning (fpop) to the PELT
// it replaced, on the same standardised prefix sums, and look at how many
// candidates it keeps. Nothing outside harness/compare/ includes this.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "harness/compare/change_points.h"

namespace harness::change_point_search {

// One series' penalised cost as the searches read it: prefix sums of the
// standardised values z (s1[i] = z[0] + ... + z[i-1], s2 the same of z^2),
// the least values per segment and the penalty per change. The cost of the
// values [a, b) is max(0, (s2[b] - s2[a]) - (s1[b] - s1[a])^2 / (b - a)).
struct Problem {
  std::size_t min_segment = 1;
  double penalty = 0;
  std::vector<double> s1, s2;  // n + 1 each
  std::size_t size() const { return s1.empty() ? 0 : s1.size() - 1; }
};

// nullopt when the series cannot show a change: fewer than 2 * min_segment
// values, or no noise scale (difference_noise_scale not > 0: a constant series,
// or a NaN scale).
std::optional<Problem> standardised(std::span<const double> values, const ChangePointOptions& options);

// The splits (first index of each new level, ascending) that minimise the
// penalised cost, every split tried at every t (optimal partitioning): the
// definition, quadratic in n.
std::vector<std::size_t> unpruned(const Problem& problem);

// The same search with PELT's inequality pruning: what find_change_points
// used before fpop. Its pruning is not exact with a minimum segment over 1:
// it drops a split at t when the best fit up to t is better, but the split
// at t can only be used from t + min_segment on, and in between the dropped
// one may be the best; so it sometimes misses the optimum (2 of
// change_points_test's 6,000 random series; 66 of 50,000 stationary series of
// 8 values in scripts/bench-change-points).
std::vector<std::size_t> pelt(const Problem& problem);

// How much of the search fpop kept, for the tests: the most candidates alive
// at once and the most pieces of the envelope.
struct FpopTally {
  std::size_t peak_candidates = 0;
  std::size_t peak_pieces = 0;
};

// The same splits, bit for bit, with functional pruning (change_points.cc).
std::vector<std::size_t> fpop(const Problem& problem, FpopTally* tally = nullptr);

// What find_change_points uses for an exact search: PELT for short series
// (where its quadratic worst case is cheaper than fpop's bookkeeping), fpop
// beyond.
std::vector<std::size_t> exact(const Problem& problem);

}  // namespace harness::change_point_search
