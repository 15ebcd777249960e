// The raw truth of one run: everything the probes acquired, nothing derived.
// Analysis is a pure function of (Scenario, Recording), so a replay of a
// recording gives the same metrics and verdicts as the live run did.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "harness/levels/accuracy.h"
#include "harness/levels/counters.h"
#include "harness/levels/ddr.h"
#include "harness/levels/latency.h"
#include "harness/levels/roofline.h"
#include "harness/levels/stability.h"

namespace harness {

// A raw file a probe wrote (a capture), named relative to base_dir.
struct RecordedFile {
  std::string name;  // "ddr/capture.sr"
  std::string kind;  // "sigrok-session", "csv", ...
};

// The rig as the run met it: where the device was, how its clock mapped
// onto the host's, and the one measurement window the host-side instruments
// (analyzer, power meter) and the device's iterations share.
struct RigRecording {
  std::string name;           // [rig] name
  std::string transport;      // "local", "ssh:root@board-3:22"
  std::string agent_version;  // the agent's harness version
  int protocol = 0;
  std::vector<std::string> missing;  // what the device lacks, each with its reason
  // Device clock = host clock + offset_ns, within +- uncertainty_ns.
  struct ClockSync {
    std::string when;  // "before", "after"
    std::int64_t offset_ns = 0;
    std::uint64_t uncertainty_ns = 0;
    std::uint64_t rtt_ns = 0;
    int probes = 0;
  };
  std::vector<ClockSync> syncs;
  // Seconds on the host's monotonic clock from origin_host_ns.
  struct Window {
    std::string level;      // "latency", "counters"
    std::string condition;  // latency: the load condition
    std::uint64_t origin_host_ns = 0;  // when the host opened the window: time 0
    double closed_s = 0;               // when the host closed it
    // latency: the first measured iteration's start and the last one's end;
    // counters: the request's span (its iterations lie inside it)
    double iterations_start_s = 0, iterations_end_s = 0;
    double iterations_origin_s = 0;  // where the condition's start_s counts from
    std::optional<double> capture_start_s, capture_end_s;  // the analyzer's first and last sample
    std::optional<double> power_start_s, power_end_s;      // the power trace's first and last reading
  };
  std::optional<Window> window;
};

struct Recording {
  static constexpr int kFormatVersion = 1;
  std::map<std::string, std::string> context;  // host, kernel, CPU, versions...
  std::string started_at;                      // ISO 8601 UTC
  std::string ended_at;
  std::string aborted;  // non-empty: why the run stopped early
  // One typed part per level, present when the level ran. They stay typed
  // members (the analysis reads them as such); the level table's rows
  // (level_table.cc) are the one code that names them all.
  std::optional<RooflineRecording> roofline;
  std::optional<CountersRecording> counters;
  std::optional<DdrRecording> ddr;
  std::optional<LatencyRecording> latency;
  std::optional<AccuracyRecording> accuracy;  // level 5
  std::optional<RigRecording> rig;
  // The rig's steadiness around each acquisition on the device; absent in
  // recordings made before harness took these readings.
  std::optional<StabilityRecording> stability;
  std::vector<RecordedFile> files;
  // Where file names inside the recording (captures) resolve: the run's
  // artifact folder for a live run, the bundle folder for a replay. Not
  // serialised: a recording never names an absolute path.
  std::string base_dir;
};

void to_json(nlohmann::json& j, const Recording& r);
void from_json(const nlohmann::json& j, Recording& r);

}  // namespace harness
