#include "harness/runner/progress.h"

#include <algorithm>

namespace harness {

double estimated_remaining_s(const ProgressEvent& e) {
  if (e.level != Level::latency || e.done <= 0 || e.measuring_s <= 0) return -1;
  const double per_iteration = e.measuring_s / static_cast<double>(e.done);
  const double by_count = static_cast<double>(std::max<std::int64_t>(e.planned - e.done, 0)) * per_iteration;
  const double by_time = e.min_duration_s - e.measuring_s;
  double remaining = std::max({by_count, by_time, 0.0});
  const double condition_s = std::max(static_cast<double>(std::max(e.planned, e.done)) * per_iteration, e.min_duration_s);
  const int to_come = std::max(e.condition_count - e.condition_index, 0);
  return remaining + to_come * condition_s;
}

}  // namespace harness
