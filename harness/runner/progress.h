// What a live run tells the person waiting for it. The runner reports plain
// events through RunProgress and knows nothing of terminals: harness/cli
// draws them (a live line per level on a TTY, one-line milestones
// elsewhere, progress_view.h). Events come from the run's thread; a view
// that draws from a thread of its own locks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/model/metric.h"

namespace harness {

struct ProgressEvent {
  enum class Kind {
    note,                // a step of the run in words (`text`): "run 7 started (runs.sqlite)"
    level_started,       // `level` begins; `text` says how it runs: "iterations on the device"
    condition_started,   // level 4: a load condition begins (load settling, then the warm-up)
    iterations,          // level 4: measured iterations so far (about every 250 ms)
    condition_finished,  // level 4: the condition's iterations are all in
    level_finished,      // `failure` empty: the level is done; else why it stopped
  };
  Kind kind = Kind::note;
  Level level = Level::roofline;
  std::string text;
  double elapsed_s = 0;  // since the level started (0 for a note)

  // Level 4: the load condition measured now ("none", "stress-ng-cpu-4"),
  // 1-based among all of the scenario's conditions.
  std::string condition;
  int condition_index = 0, condition_count = 0;
  // The condition's measured iterations so far and what its plan asks:
  // at least `planned` iterations and at least `min_duration_s` seconds.
  std::int64_t done = 0, planned = 0;
  double min_duration_s = 0;
  double measuring_s = 0;  // since the condition's first measured iteration began (0: none yet)
  // Samples captured so far by the level: latency samples of every
  // condition, and the analyzer's when a capture shares the window.
  std::int64_t samples = 0;
  std::uint64_t analyzer_samples = 0;

  std::string failure;
};

class RunProgress {
 public:
  virtual ~RunProgress() = default;
  virtual void report(const ProgressEvent& event) = 0;
};

// Keeps every event (tests; a caller that wants them afterwards).
class RecordedProgress final : public RunProgress {
 public:
  void report(const ProgressEvent& event) override { events.push_back(event); }
  std::vector<ProgressEvent> events;
};

// Seconds until the level is done, estimated from the last event: the
// current condition's iterations at the rate seen so far (or its minimum
// duration, whichever ends later), and as long again for every condition
// still to come. Negative: no estimate yet (no iteration measured, or not
// level 4).
double estimated_remaining_s(const ProgressEvent& event);

}  // namespace harness
