// The order in which level 2's counted iterations run on the device, in
// windows read between: what the agent does and what the host expects of
// its reply, from one function.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "harness/scenario/counters_config.h"

namespace harness {

// Each window's side (true: the reference) and length. Without a reference,
// [counters] windows of the candidate (window_end); with one, rounds (the
// reference's, at most the iterations), one window of each side a round in
// the order reference_first draws, each ceil(iterations / rounds) iterations.
struct WindowPlan {
  std::vector<bool> reference;
  std::vector<std::int64_t> length;
  std::int64_t total() const;
};

// The plan for `cfg`, with its reference (cfg.paired_with) and the run's
// seed (its seed, or 0).
WindowPlan plan_windows(const CountersConfig& cfg);

}  // namespace harness
