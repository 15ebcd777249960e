// The rig stability gate: from the readings taken around each acquisition
// on the device (probes/stability: before, during at [rig.stability]
// interval, after) and the scenario's limits, each level whose work ran on
// the device gets `stability.<level>`: "stable", "unstable: <what broke>"
// ("cpu0 2.1→1.2 GHz; canary cpu0 +23 %") or unavailable with the reason,
// and the figures behind it (stability.<level>.canary_change, ...) so that
// history can chart them. Compare reads `stability.<level>`: a level whose
// text starts with "unstable" has its metrics judged `cannot tell`, never
// regressed or improved. Pure: replaying a recording gives the same result.
// docs/parts/stability.md.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "harness/model/metric.h"
#include "harness/scenario/stability_config.h"
#include "probes/stability/stability_reading.h"

namespace harness {

// The readings around one acquisition: a level (1 or 2), or one load
// condition of level 4.
struct StabilitySeries {
  std::string level;      // level_name: "roofline", "counters", "latency"
  std::string condition;  // level 4: the load condition
  std::vector<StabilityReading> readings;  // "before", "during"..., "after"
  std::string unavailable;  // why there are none: disabled, an agent without the op, ...
};

// The Recording's part: absent in recordings made before harness took
// these readings, which then get no stability metrics at all.
struct StabilityRecording {
  std::vector<StabilitySeries> series;
};

void to_json(nlohmann::json& j, const StabilityReading& r);
void from_json(const nlohmann::json& j, StabilityReading& r);
void to_json(nlohmann::json& j, const StabilityRecording& r);
void from_json(const nlohmann::json& j, StabilityRecording& r);

// Which of the canary's times a comparison of two readings uses: the
// threads' CPU time when every canary of both readings that ran has it (an
// agent that reads it), else the wall clock (older agents and recordings).
enum class CanaryClock { cpu, wall };
CanaryClock compared_canary_clock(const StabilityReading& a, const StabilityReading& b);
const Probed<double>& canary_time(const CanaryTime& c, CanaryClock clock);

// One series against the limits: what broke, and the figures (each absent
// with its reason when the device did not expose what it needs).
struct StabilityJudgement {
  std::vector<std::string> broken;  // "cpu0 2.1→1.2 GHz", "canary cpu1 +23 %"
  std::string unavailable;          // set: nothing could be judged, and why
  Probed<double> canary_change, cpu_freq_drop, temperature_rise, throttle_increase, other_cpu_share, steal_share;
};
StabilityJudgement judge_stability(const StabilitySeries& series, const StabilityConfig& limits);

// Adds stability.<level> and its figures for every level with a series.
void analyse_stability(const StabilityConfig& limits, const StabilityRecording& recording, Provenance measured,
                       Analysis& out);

}  // namespace harness
