// `harness rig check`'s stability section: the state the device is in, read
// twice (each reading with the canary, a moment apart, so its spread shows
// how steady the rig is right now), and what to change for steadier runs,
// in the spirit of `pyperf system show`: the governor, boost, isolated
// CPUs, busy processes.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "harness/scenario/stability_config.h"
#include "probes/stability/stability_reading.h"

namespace harness {

// What to change, one line each; empty when the rig reads as steady.
std::vector<std::string> rig_stability_advice(const StabilityReading& first, const StabilityReading& second,
                                              const StabilityConfig& limits, bool workload_pinned);

// The section as text, advice included.
std::string render_rig_stability(const StabilityReading& first, const StabilityReading& second,
                                 const StabilityConfig& limits, bool workload_pinned);

// The same as JSON: both readings and the advice.
nlohmann::json rig_stability_json(const StabilityReading& first, const StabilityReading& second,
                                  const StabilityConfig& limits, bool workload_pinned);

}  // namespace harness
