// The raw truth of one run: everything the probes acquired, nothing derived.
// Analysis is a pure function of (Scenario, Recording), so a replay of a
// recording gives the same metrics and verdicts as the live run did.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "harness/levels/counters.h"
#include "harness/levels/ddr.h"
#include "harness/levels/latency.h"
#include "harness/levels/roofline.h"

namespace harness {

// A raw file a probe wrote (a capture), named relative to base_dir.
struct RecordedFile {
  std::string name;  // "ddr/capture.sr"
  std::string kind;  // "sigrok-session", "csv", ...
};

struct Recording {
  static constexpr int kFormatVersion = 1;
  std::map<std::string, std::string> context;  // host, kernel, CPU, versions...
  std::string started_at;                      // ISO 8601 UTC
  std::string ended_at;
  std::string aborted;  // non-empty: why the run stopped early
  std::optional<RooflineRecording> roofline;
  std::optional<CountersRecording> counters;
  std::optional<DdrRecording> ddr;
  std::optional<LatencyRecording> latency;
  std::vector<RecordedFile> files;
  // Where file names inside the recording (captures) resolve: the run's
  // artifact folder for a live run, the bundle folder for a replay. Not
  // serialised: a recording never names an absolute path.
  std::string base_dir;
};

void to_json(nlohmann::json& j, const Recording& r);
void from_json(const nlohmann::json& j, Recording& r);

}  // namespace harness
