// Level 2: PMU stall and miss counters read around the workload. The
// recording holds raw counter values as the sources gave them; the analysis
// turns them into deltas (width, wrap-around, multiplexing, scale), derived
// metrics from the groups' formulas, and verdicts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "harness/model/metric.h"
#include "harness/scenario/scenario.h"
#include "probes/counters/counter_reading.h"

namespace harness {

// A group as it was when the run was recorded.
struct RecordedCounterGroup {
  std::string name;
  std::string path;
  std::string sha256;
};

// One block of level 4's paired rounds (a request of its own, with its own
// warm-up) read by a session of its own: opened in the block's thread, read
// right before its first measured iteration and right after its last. Raw
// readings like CountersRecording::readings (before and after), never
// summed into another block's: the analysis pairs the blocks by round.
struct CounterBlock {
  int round = 0;          // from 0, in the order the rounds ran
  std::string side;       // "candidate" or "reference"
  std::int64_t iterations = 0;  // the block's measured iterations
  std::vector<CounterReading> readings;
};

struct CountersRecording {
  std::vector<CounterReading> readings;
  std::vector<RecordedCounterGroup> groups;
  std::int64_t iterations = 0;  // workload iterations between the readings
  // The windows the iterations were read in (window_end); 0 in a recording
  // older than windows, whose readings between came after every iteration.
  std::int64_t windows = 0;
  // With a same-run reference: whose each window was, "candidate" or
  // "reference", one of each a round in the order they ran (so windows is
  // twice the rounds); empty without a reference (and in older recordings).
  std::vector<std::string> window_sides;
  std::string pairing;  // "random order, seed 1234" / "ABBA order"; with window_sides or blocks
  // Read in level 4's paired rounds (window "latency" with a same-run
  // reference): each block's own readings, in the order the blocks ran;
  // `readings` is then empty and `iterations` the blocks' sum.
  std::vector<CounterBlock> blocks;
  // Which measurement window the counted iterations are ([rig] window):
  // "latency": level 4's measured iterations of its window's condition, read
  // at their edges (and between the windows above), where the analyzer and
  // the power meter saw them; "counters": level 2's own iterations, the
  // analyzer and the meter around them; "none": level 2's own iterations in
  // a request of their own, outside the measurement window; empty in a
  // recording older than this.
  std::string window;
  // Why level 2 ran in a request of its own although level 4 owned the
  // window (an agent that does not offer "counters.window"); empty otherwise.
  std::string window_reason;
  std::string window_condition;  // "latency": the load condition
  // Each window's iterations, when they are not window_end's (a latency
  // window's last runs on to its min_duration); empty: window_end's.
  std::vector<std::int64_t> window_iterations;
  std::string unavailable;  // why the level has no readings at all
};

// Iterations done at the end of window `k` (from 0) of `windows` over
// `iterations`: consecutive windows of nearly equal length.
std::int64_t window_end(std::int64_t iterations, std::int64_t windows, std::int64_t k);

void to_json(nlohmann::json& j, const CountersRecording& r);
void from_json(const nlohmann::json& j, CountersRecording& r);

// One counter's change over the workload, or why it cannot be used.
struct CounterDelta {
  std::optional<double> value;  // scaled
  std::string unavailable;
  std::string note;  // "wrapped at 48 bits", "scaled x1.25 for multiplexing"
  // With readings between windows: each window's change, scaled like the
  // value (a perf counter by its own window's enabled / running time when
  // recorded, else the run's); empty when a window never counted.
  std::vector<double> windows;
};
// Deltas done right: a value wider than the counter is refused; after <
// before is a wrap-around only when the wrapped delta is below half the
// counter's range (a larger one is a reset or a counter going backwards and
// is reported, not used); a counter read before but not after vanished
// during the run; perf counters are scaled by time_enabled / time_running.
CounterDelta counter_delta(const CounterReading& reading);

// Metrics counter.<NAME> (each counter's delta) and counter.<metric> (each
// group formula over the deltas). A run read in two or more windows also gets
// a sample set of the same name per counter and formula: each window's value
// scaled to the run's iterations (change x iterations / the window's
// iterations), in the order they ran, so that compare can tell a change of
// the workload (every window) from a disturbance of the host (some).
void analyse_counters(const Scenario& scenario, const CountersRecording* recording,
                      Provenance measured, Analysis& out);

// Level 1's measured bytes: the `bytes` metric of the counter groups over one
// workload iteration ("counter.bytes_per_iteration", unit B, formula as
// source), or the unavailable "counter.bytes" with its reason; nothing when
// no group defines `bytes`. Pure.
std::optional<Metric> counter_bytes_per_iteration(const Scenario& scenario, const CountersRecording* recording,
                                                  Provenance measured);

// Expectations against a baseline run ([counters.expect.baseline]): a drop
// or rise of a counter or derived metric, and co-movement ("L2_MISS_CYCLES
// must drop when MEM_STALL_CYCLES drops"). Pure: used by `harness compare`.
std::vector<Verdict> evaluate_counters_baseline(const CountersConfig& config, const Analysis& baseline,
                                                const Analysis& current);
// The same expectations in a run without a baseline: "unavailable: needs a baseline".
std::vector<Verdict> counters_baseline_placeholders(const CountersConfig& config);

}  // namespace harness
