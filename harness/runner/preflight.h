// The pre-flight: everything a run would find wrong with a scenario before
// it measures anything, found in one pass and reported together, so that no
// rig time is spent on a scenario that cannot finish. `harness check`, `harness
// run --dry-run` and `harness run` itself (before the store is opened) use it.
//
// What it checks, each problem naming the scenario's file:line:col:
//   - every section of the scenario (parse_scenario_problems: a problem in
//     one section does not hide another's);
//   - every host file the scenario names, opened with the run's own readers
//     and limits: level 3's capture (its header and channels), level 1's
//     layer profile, level 5's tensor dumps and layer map;
//   - every tool: the sigrok drivers ([ddr.acquire], [latency.power]), the
//     power source, and on a local rig the programs of the workload, the
//     loads, the vendor tools, counter commands and [rig.versions];
//   - the rig, when the scenario needs the device: reached through its
//     transport, the agent asked for every capability the scenario needs,
//     each stress-ng load tried with --dry-run on the device (a missing job
//     file, an unknown stressor), and on a remote rig each program looked up
//     in the device's PATH.
// It writes nothing and opens no store.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/base/result.h"
#include "harness/rig/device.h"
#include "harness/scenario/scenario.h"
#include "harness/scenario/scenario_problems.h"

namespace harness {

struct PreflightOptions {
  bool ask_rig = true;  // false: files and host tools only (the device is not contacted)
};

struct Preflight {
  // In the order of their place in the scenario file; the rig's faults
  // (unreachable, an agent that refuses the host) with ExitCode::infrastructure,
  // the rest bad input.
  std::vector<Error> problems;
  std::vector<std::string> checked;  // what was found ready, one line each ("rig 'x': agent harness 0.1.0 via local")
  bool ok() const { return problems.empty(); }
};

// Checks a parsed scenario.
Preflight preflight_scenario(const Scenario& scenario, const PreflightOptions& options = {});
// Reads and parses the file, then checks what parsed; `parsed` receives the
// scenario when it has no problem of its own.
Preflight preflight_file(const std::string& path, const PreflightOptions& options, std::optional<Scenario>* parsed);

// What the scenario needs of the device that the device says it lacks.
std::vector<std::string> unmet_device_needs(const Scenario& scenario, const DeviceInfo& info);

}  // namespace harness
