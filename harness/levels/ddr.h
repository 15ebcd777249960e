// Level 3: DDR command-bus activity decoded from a logic-analyzer capture.
// The recording names the capture file (the raw truth, kept with its
// sha256); the analysis decodes that file, so it stays a pure function of
// the recorded bytes: a changed file is refused, not analysed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "harness/model/metric.h"
#include "harness/scenario/scenario.h"

namespace harness {

struct DdrRecording {
  std::string capture;      // the capture file, relative to the recording's base_dir ("ddr/capture.sr")
  std::string sha256;       // of the capture file when it was recorded
  std::uint64_t size = 0;   // bytes
  std::string format;       // "sr", "vcd", ...; empty: detect
  std::string source;       // "file:<as written in the scenario>" or "sigrok:<driver>"
  std::string unavailable;  // why there is no capture
};

void to_json(nlohmann::json& j, const DdrRecording& r);
void from_json(const nlohmann::json& j, DdrRecording& r);

// `base_dir` is where the recording's files are (Recording::base_dir).
void analyse_ddr(const Scenario& scenario, const DdrRecording* recording, const std::string& base_dir,
                 Provenance measured,
                 Analysis& out);

// Verdicts of the scenario's "<metric>_vs_baseline" expectations: the
// current run's metric must be lower (or higher) than the baseline's.
std::vector<Verdict> evaluate_ddr_baseline(const DdrConfig& config, const Analysis& baseline,
                                           const Analysis& current);

}  // namespace harness
