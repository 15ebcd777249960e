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
#include <string_view>
#include <vector>

#include "harness/model/metric.h"

namespace harness {

inline constexpr std::size_t kPersistenceStretches = 5;
inline constexpr double kPersistenceConfidence = 0.99;

struct Persistence {
  std::size_t stretches = 0;  // the new run's samples cut into this many
  std::size_t showing = 0;    // stretches that show the change
  bool holds() const { return showing == stretches; }
};

// The statistic of each of the kPersistenceStretches consecutive stretches of
// `in_order`, with its 99 % interval (distribution-free for a quantile `q` in
// (0, 1), normal for the mean without q). Nothing when a stretch would hold
// fewer than `min_samples`, or too few for the interval.
struct StretchStatistic {
  double value = 0, low = 0, high = 0;
};
std::optional<std::vector<StretchStatistic>> stretch_statistics(std::span<const double> in_order,
                                                                std::optional<double> q, std::size_t min_samples);

// A run's value of the statistic `name` that a disturbance for a while does
// not move: its best stretch's (the lowest where lower is better, the highest
// where higher is; the median of the five with no better side). A disturbance
// of the host only ever slows a run, so the least disturbed stretch is the
// nearest to the workload's own cost, as the minimum of repeated timings is
// (Chen & Revels 2016, "Robust benchmarking in noisy environments"); a change
// of the workload moves every stretch, the best too. It is what the spread
// between a baseline set's runs is taken of, for the new run too, so that one
// baseline night disturbed for a while does not widen the spread a change
// must exceed, and a new night disturbed for a while does not leave it. On a
// shared VM one baseline night ran 45 % of its iterations at 360 us among the
// others' 223 us, in three of its five stretches; level 1's five rounds of
// bandwidth.burst_64B read 9.0 8.9 4.1 4.1 6.0 GB/s in one night. Nothing when
// a stretch would hold fewer than `min_samples` (at least 1), or the statistic
// is not one of statistic_of_sorted's (sample_statistics.h).
std::optional<double> undisturbed_value(std::span<const double> in_order, std::string_view name, Better better,
                                        std::size_t min_samples);

// `in_order`: the new run's samples in the order they were taken; `current`
// the whole run's statistic, `baseline` the baseline's (both of the same
// statistic: the quantile `q` in (0, 1), or the mean without q). A stretch
// shows the change unless it clearly lacks it: its statistic is within half
// the threshold of the baseline (relative, on the change's side) and its 99 %
// interval (distribution-free for a quantile, normal for the mean) stops
// short of the whole run's value. So noise in a stretch never vetoes a
// change (a 5 % shift judged on 200 samples a stretch keeps its verdict);
// stretches that ran at the baseline's speed while others did not do.
// Nothing when a stretch would hold fewer than `min_samples`, or too few for
// the interval, or the baseline is 0, or there is no change.
std::optional<Persistence> persistence(std::span<const double> in_order, std::optional<double> q, double baseline,
                                       double current, double threshold, std::size_t min_samples);

}  // namespace harness
