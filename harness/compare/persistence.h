// Whether a change of a sample set's statistic holds throughout the new run.
//
// The samples of repeated iterations of one workload, in the order they ran,
// are cut into consecutive stretches. A change of the workload (its code, its
// data, the driver or firmware under it) runs in every iteration, so it shows
// in every stretch; a disturbance of the host (another tenant's burst on a
// shared machine, a core shared with the load for a while) comes and goes and
// shows in some. Seen on real runs of scenarios/host.toml on a shared VM: a
// condition whose first 40 % ran at the baseline's 226 us and the rest at
// 390 us, and a run whose p90 rose 46 % from two stretches of slow iterations
// while the others matched the baseline; a workload made 20 % slower was 20 %
// slower in every tenth of every run.
#pragma once

#include <cstddef>
#include <optional>
#include <span>

namespace harness {

inline constexpr std::size_t kPersistenceStretches = 5;

struct Persistence {
  std::size_t stretches = 0;  // the new run's samples cut into this many
  std::size_t beyond = 0;     // stretches whose statistic lies beyond half the threshold on the change's side
  bool holds() const { return beyond == stretches; }
};

// `in_order`: the new run's samples in the order they were taken. The
// statistic of each stretch is its quantile `q` (in (0, 1)) or, without q,
// its mean; it is held against `baseline` (the baseline's value of the same
// statistic): beyond when (stretch - baseline) / |baseline| reaches
// threshold / 2 in the direction of `change` (its sign). Nothing when a
// stretch would hold fewer than `min_samples`, or too few samples on either
// side of the quantile to show it (5, as the quantile test asks), or the
// baseline is 0.
std::optional<Persistence> persistence(std::span<const double> in_order, std::optional<double> q, double baseline,
                                       double change, double threshold, std::size_t min_samples);

}  // namespace harness
