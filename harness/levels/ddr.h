// Level 3: DDR command-bus activity decoded from a logic-analyzer capture.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "harness/model/metric.h"
#include "harness/scenario/scenario.h"

namespace harness {

struct DdrRecording {
  std::string capture;      // the capture file, relative to the recording
  std::string unavailable;  // why there is no capture
};

void to_json(nlohmann::json& j, const DdrRecording& r);
void from_json(const nlohmann::json& j, DdrRecording& r);

void analyse_ddr(const Scenario& scenario, const DdrRecording* recording, Provenance measured,
                 Analysis& out);

}  // namespace harness
