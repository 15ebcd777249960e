#include "harness/rig/step_progress.h"

#include <algorithm>

namespace harness {

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
