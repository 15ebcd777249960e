// Level 2: PMU stall and miss counters read around the workload.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "harness/model/metric.h"
#include "harness/scenario/scenario.h"

namespace harness {

struct CounterReading {
  std::string name;    // "task-clock", "MEM_STALL_CYCLES"
  std::string source;  // "perf_event", "sysfs:/sys/..."
  std::string unit;    // "ns", "events", "cycles"
  std::optional<double> before;
  std::optional<double> after;
  std::string unavailable;  // the source's reason (an errno text, ...)
};

struct CountersRecording {
  std::vector<CounterReading> readings;
  std::string unavailable;  // why the level has no readings at all
};

void to_json(nlohmann::json& j, const CountersRecording& r);
void from_json(const nlohmann::json& j, CountersRecording& r);

void analyse_counters(const Scenario& scenario, const CountersRecording* recording,
                      Provenance measured, Analysis& out);

}  // namespace harness
