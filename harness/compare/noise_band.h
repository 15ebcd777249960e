// The run-to-run noise of a single value, learnt from earlier runs of the same
// scenario on the same rig. Within-run samples cannot show it (a rig that is
// 8 % slower on Tuesdays is not a regression), so a single value is only called
// changed when it leaves this band.
#pragma once

#include <cstddef>
#include <optional>
#include <span>

namespace harness {

struct NoiseBand {
  std::size_t runs = 0;  // history values used
  double mean = 0;
  double sd = 0;         // sample standard deviation of the history
  double t = 0;          // (value - mean) / (sd * sqrt(1 + 1/runs))
  double p = 1;          // two-sided, Student's t with runs - 1 degrees of freedom
};

// A prediction-interval test: is `value` a plausible next draw from the
// distribution the history came from (assumed roughly normal)? Nothing when
// the history has fewer than `min_runs` values (at least 3). A history with
// no spread at all gives p = 1 for the same value and p = 0 for another.
std::optional<NoiseBand> noise_band(std::span<const double> history, double value, std::size_t min_runs);

}  // namespace harness
