// A same-run reference in a live run: the candidate ([workload]) and the
// reference ([reference]) alternate in rounds on the device, one block of
// each a round, in an order drawn per round from the run's seed (or ABBA),
// inside one measurement window (docs/parts/compare.md, "Paired rounds").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/levels/latency.h"
#include "harness/rig/device.h"
#include "harness/runner/acquire.h"

namespace harness {

// Level 4's iterations a block: [latency] iterations split over the first
// look's rounds, at least one.
std::int64_t paired_block_iterations(const Scenario& scenario);

// The condition's rounds: warm-up of each side before its first block,
// block_warmup before every later one; each block's measured iterations go
// to `sink` (which appends them to `start_ns`/`end_ns`) and `out.blocks`
// records which were whose. When a gating metric of this condition is
// "cannot tell" after a look and [compare] allows (max_rounds,
// time_budget), another look's rounds follow. Returns the first block's
// window (its measuring_ns is the condition's time origin); with the plan's
// counters, each block reads them in a session of its own at its measured
// edges, and the window's counters hold every block's readings (blocks).
Result<WorkloadWindow> run_paired_rounds(const AcquireContext& ctx, Device& device, const IterationPlan& plan,
                                         const IterationSink& sink, const std::vector<std::uint64_t>& start_ns,
                                         const std::vector<std::uint64_t>& end_ns, LatencyCondition& out);

}  // namespace harness
