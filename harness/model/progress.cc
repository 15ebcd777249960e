#include "harness/model/progress.h"

#include <algorithm>

namespace harness {

double estimated_remaining_s(const ProgressEvent& e) {
  if (e.kind == ProgressEvent::Kind::step) {
    if (e.step_count <= 0 || e.step_index <= 0 || e.elapsed_s <= 0) return -1;
    const double in_step = e.planned > 0 ? static_cast<double>(std::min(e.done, e.planned)) / static_cast<double>(e.planned) : 0;
    const double share_done = (e.step_index - 1 + in_step) / e.step_count;
    if (share_done <= 0) return -1;
    return e.elapsed_s * (1 - share_done) / share_done;
  }
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
