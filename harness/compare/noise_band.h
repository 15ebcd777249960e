// The run-to-run noise of a single value, learnt from earlier runs of the same
// scenario on the same rig. Within-run samples cannot show it (a rig that is
// 8 % slower on Tuesdays is not a regression), so a single value is only called
// changed when it leaves this band.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace harness {

struct NoiseBand {
  std::size_t runs = 0;  // history values used
  double mean = 0;
  double sd = 0;         // sample standard deviation of the history, or the floor
  bool counting_floor = false;  // sd is a count's Poisson spread, larger than the history's
  double t = 0;          // (value - mean) / (sd * sqrt(1 + 1/runs))
  double p = 1;          // two-sided, Student's t with runs - 1 degrees of freedom
};

// What a few runs cannot show about a value's noise. A count of discrete
// events (context switches, page faults, misses) varies from run to run at
// least as a Poisson count does, by sqrt(count), and by one event at the
// least: five runs that each counted 2 context switches do not make a run
// with 1 a 50 % change beyond all doubt.
enum class NoiseFloor { none, counting };

// The floor a metric's unit implies: "events" counts (the counter groups'
// unit for event counts) take the counting floor; every other unit none.
NoiseFloor noise_floor_of_unit(std::string_view unit);

// A prediction-interval test: is `value` a plausible next draw from the
// distribution the history came from (assumed roughly normal)? Nothing when
// the history has fewer than `min_runs` values (at least 3). The spread is the
// history's, raised to the floor where the floor is larger. A history with no
// spread at all and no floor gives p = 1 for the same value and p = 0 for
// another.
std::optional<NoiseBand> noise_band(std::span<const double> history, double value, std::size_t min_runs,
                                    NoiseFloor floor = NoiseFloor::none);

}  // namespace harness
