// A night against nights: the evidence for judging one run's value of a
// metric against earlier runs when no same-run reference cancels the rig's
// drift. The spread a change must exceed is the spread *between* nights:
// within one run's samples it cannot be seen (a rig that is 8 % slower on
// Tuesdays is no regression). It comes from the baseline's own nights, from
// the rig's calibration (A/A nights, `harness calibrate`) or from the
// history of earlier runs, pooled by their degrees of freedom:
//   estimate = ln(value) - mean(ln baseline nights)      (log scale), or
//              (value - mean) / |mean|                    (a metric that is not always positive)
//   se       = s * sqrt(1/N + 1),  s the pooled between-night sd on that scale
// so a baseline of one night (N = 1) needs an outside spread: without one the
// spread is unknown and nothing can be claimed.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include "harness/compare/judgement.h"
#include "harness/compare/noise_band.h"

namespace harness {

// A between-night spread on a judged scale.
struct NightSpread {
  double sd = 0;
  double degrees_of_freedom = 0;  // nights - 1
  ChangeScale scale = ChangeScale::log_ratio;
  std::string basis;              // "calibration of 2026-12-04 (20 nights)"
};

// The scale a set of values is judged on: logs when every value is positive.
ChangeScale scale_of(std::span<const double> values);

// The spread of `values` on `scale` about their mean (relative to |mean| on
// the relative scale), or nothing with fewer than 2 values. `robust`: 1.4826 x
// the median absolute deviation instead of the standard deviation, for a
// history that may hold a level shift or a wild night (they would widen the
// spread a change must exceed).
std::optional<NightSpread> spread_of(std::span<const double> values, ChangeScale scale, std::string basis,
                                     bool robust = false);

// The evidence of `value` against the baseline's nights (at least one).
// Their own spread is used with at least `min_nights` of them; `outside`
// (calibration or history, on the same scale) is pooled with it. A count of
// events (NoiseFloor::counting) varies at least as a Poisson count does:
// the nights' mean by its count, the new night by its own.
// Nothing when no spread is known.
std::optional<ChangeEvidence> night_evidence(std::span<const double> nights, double value, std::size_t min_nights,
                                             const std::optional<NightSpread>& outside,
                                             NoiseFloor floor = NoiseFloor::none);

}  // namespace harness
