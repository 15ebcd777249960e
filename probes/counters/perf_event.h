// Linux perf_event_open counters of the calling thread (and, when asked, its
// children): generic hardware and software events by perf's names,
// hardware-cache events ("LLC-load-misses"), raw events as the kernel takes
// them ("4/0x3c", "r003c") and PMU events from sysfs ("msr/tsc").
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/base/result.h"
#include "probes/counters/sources.h"

namespace harness {

// An event as perf_event_attr wants it. `pmu` is set for "<pmu>/<event>"
// names that are resolved from sysfs when the event is opened.
struct PerfEventCode {
  std::uint32_t type = 0;
  std::uint64_t config = 0;
  std::string pmu;        // "msr"
  std::string pmu_event;  // "tsc" or a number
};

// Parses a name; an unknown name suggests the closest known one.
Result<PerfEventCode> parse_perf_event_name(std::string_view name);
// Every name parse_perf_event_name knows without sysfs.
const std::vector<std::string>& perf_event_names();

// Resolves a "<pmu>/<event>" code against a sysfs PMU tree: the PMU's type
// and the event's config from events/<event> and format/<term>.
Result<PerfEventCode> resolve_pmu_event(const PerfEventCode& code, const std::string& pmu_root);

Result<std::unique_ptr<CounterSource>> make_perf_event_source(const CounterSourceSpec& spec,
                                                              const std::vector<CounterSpec>& counters,
                                                              const CounterSourceOptions& options);

}  // namespace harness
