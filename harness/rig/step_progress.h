// How a level that runs on the device (levels 1 and 2, in the agent or in
// this process) reports its steps as progress events (harness/model/progress.h).
#pragma once

#include <cstdint>
#include <string>

#include "harness/model/progress.h"
#include "probes/clock.h"

namespace harness {

// How levels 1 and 2 report their steps where they run (on the device, in
// the agent): the start of each step, then its count at most every
// `period_s` and once when it is complete, so a million fast iterations cost
// a few events (each crosses the agent's link). `progress` may be null.
class StepProgress {
 public:
  StepProgress(RunProgress* progress, Clock& clock, Level level, int step_count, std::string counted,
               double period_s = 0.25);
  void begin(std::string step, std::int64_t planned);  // reports done = 0
  void advance(std::int64_t done);
  // The step's text from now on, shown with the next count reported (what a
  // step that takes several measurements is taking now).
  void retitle(std::string step);

 private:
  void report();
  RunProgress* progress_;
  Clock& clock_;
  double period_s_;
  std::uint64_t start_ns_ = 0, reported_ns_ = 0;
  ProgressEvent event_;
};

}  // namespace harness
