// Where a metric's level shifted across stored runs: an exact search for the
// segmentation that minimises
//   sum over segments of  sum (x - segment mean)^2 / sigma^2  +  penalty per change,
// i.e. a penalised step fit for changes in mean (optimal partitioning, with
// functional pruning: FPOP, Maidstone, Hocking, Rigaill & Fearnhead 2017; see
// change_points.cc and change_point_search.h). sigma is estimated robustly
// from the median absolute difference of consecutive runs (so the shifts
// themselves do not inflate it), and the penalty is 3 ln(n), a BIC-style
// choice that keeps noise from producing steps in short series. A slow drift
// shows as a staircase of small steps, which is the point: each night may
// pass its own compare while the level walks away.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace harness {

struct ChangePoint {
  std::size_t index = 0;  // first value of the new level
  double before = 0;      // mean of the segment that ends here
  double after = 0;       // mean of the segment that starts here
};

struct ChangePointOptions {
  std::size_t min_segment = 3;  // runs per level: one wild night is not a shift
  double penalty_per_ln_n = 3;  // penalty = this * ln(n), in units of sigma^2
  // The least noise a night has, in the values' unit: the rig's measured
  // spread between nights (its calibration); 0: the series' own estimate only.
  double min_sigma = 0;
  // A step smaller than this (relative to the level before) is no shift:
  // the metric's threshold, so history marks only what compare would.
  double min_relative_shift = 0;
};

// Exact up to 20,000 values (milliseconds: 20,000 stable values take about
// 4 ms); beyond, binary segmentation with the same cost and penalty
// (O(n log n)), which may miss short shifts.
std::vector<ChangePoint> find_change_points(std::span<const double> values, ChangePointOptions options = {});

// The noise scale used: 1.4826 * median |x[i] - x[i-1]| / sqrt(2), falling back
// to the standard deviation of the differences / sqrt(2) when more than half
// the differences are zero. 0 for a constant series.
double difference_noise_scale(std::span<const double> values);

}  // namespace harness
