#include "harness/runner/progress.h"

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

StepProgress::StepProgress(RunProgress* progress, Clock& clock, Level level, int step_count, std::string counted,
                           double period_s)
    : progress_(progress), clock_(clock), period_s_(period_s), start_ns_(clock.now_ns()) {
  event_.kind = ProgressEvent::Kind::step;
  event_.level = level;
  event_.step_count = step_count;
  event_.counted = std::move(counted);
}

void StepProgress::begin(std::string step, std::int64_t planned) {
  event_.text = std::move(step);
  ++event_.step_index;
  event_.done = 0;
  event_.planned = planned;
  report();
}

void StepProgress::advance(std::int64_t done) {
  event_.done = done;
  if (!progress_) return;
  const std::uint64_t now = clock_.now_ns();
  if (done >= event_.planned || static_cast<double>(now - std::min(now, reported_ns_)) * 1e-9 >= period_s_) report();
}

void StepProgress::retitle(std::string step) { event_.text = std::move(step); }

void StepProgress::report() {
  if (!progress_) return;
  reported_ns_ = clock_.now_ns();
  event_.elapsed_s = static_cast<double>(reported_ns_ - std::min(reported_ns_, start_ns_)) * 1e-9;
  progress_->report(event_);
}

}  // namespace harness
