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
    step,                // levels 1 and 2: a step of the level and how far it got (harness/rig/step_progress.h)
    level_finished,      // `failure` empty: the level is done; else why it stopped
  };
  Kind kind = Kind::note;
  Level level = Level::roofline;
  std::string text;
  double elapsed_s = 0;  // since the level started (0 for a note)

  // Level 4: the load condition measured now ("none", "stress-ng-cpu-4"),
  // 1-based among all of the scenario's conditions.
  std::string condition{};
  int condition_index = 0, condition_count = 0;
  // The condition's measured iterations so far and what its plan asks:
  // at least `planned` iterations and at least `min_duration_s` seconds.
  std::int64_t done = 0, planned = 0;
  double min_duration_s = 0;
  double measuring_s = 0;  // since the condition's first measured iteration began (0: none yet)
  // Levels 1 and 2 (Kind::step): step `step_index` of the level's
  // `step_count` (1-based), named by `text` ("bandwidth.seq_read.2t",
  // "kernel gemm", "workload"); `done` of its `planned` `counted`
  // ("repetitions", "iterations").
  int step_index = 0, step_count = 0;
  std::string counted;
  // Samples captured so far by the level: latency samples of every
  // condition, and the analyzer's when a capture shares the window.
  std::int64_t samples = 0;
  std::uint64_t analyzer_samples = 0;

  std::string failure{};
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

// Seconds until the level is done, estimated from the last event. Level 4:
// the current condition's iterations at the rate seen so far (or its minimum
// duration, whichever ends later), and as long again for every condition
// still to come. A step (levels 1 and 2): the level's elapsed time scaled by
// the share of its work still to do, counting every step as equal (a rough
// figure for level 1, whose steps differ; exact in kind for level 2's one
// step). Negative: no estimate yet (nothing measured, or an event without
// counts).
double estimated_remaining_s(const ProgressEvent& event);

}  // namespace harness
