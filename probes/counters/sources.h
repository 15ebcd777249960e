// Counter sources: where level 2 reads its counters from. One small
// interface, one table of kinds (name, description, capabilities, factory);
// a group file names a kind and the table checks its settings before any
// source is opened.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/base/result.h"
#include "probes/counters/counter_spec.h"

namespace harness {

// What a source gave for one counter at one reading: a raw counter value as
// the hardware holds it (before width, wrap-around and scale are applied), or
// the reason there is none.
struct CounterSample {
  std::optional<std::uint64_t> value;
  // perf_event only: how long the counter was enabled and actually counting;
  // they differ when the kernel multiplexes more events than the PMU holds.
  std::optional<std::uint64_t> enabled_ns, running_ns;
  std::string unavailable;

  static CounterSample missing(std::string reason) {
    CounterSample s;
    s.unavailable = std::move(reason);
    return s;
  }
};

class CounterSource {
 public:
  virtual ~CounterSource() = default;
  // One sample per counter the source was made with, in that order. A
  // counter that cannot be read is a sample with a reason, not an error.
  virtual std::vector<CounterSample> read() = 0;
  // true: the reading taken after the workload is already the delta over it
  // (a vendor tool that reports since its last run); no reading before.
  virtual bool reports_deltas() const { return false; }
  // Shown as the counters' source: "perf_event", "text_file:/sys/.../stats".
  virtual std::string describe() const = 0;
};

struct CounterSourceOptions {
  // The workload runs in child processes: perf events must follow them.
  bool follow_children = false;
  // Where PMUs are listed (perf_event's "<pmu>/<event>" names); tests point
  // it at a fake tree.
  std::string pmu_root = "/sys/bus/event_source/devices";
};

using CounterSourceFactory = Result<std::unique_ptr<CounterSource>> (*)(
    const CounterSourceSpec& spec, const std::vector<CounterSpec>& counters,
    const CounterSourceOptions& options);

// A kind of source and what it accepts: capabilities as data.
struct CounterSourceKind {
  std::string_view name;
  std::string_view description;
  std::vector<std::string> source_keys;  // keys of [sources.x] besides kind and width
  std::vector<std::string> required_source_keys;
  std::string counter_key;   // the key naming the counter in the source ("" : none)
  bool counter_key_required = true;
  CounterSourceFactory make;
};

const std::vector<CounterSourceKind>& counter_source_kinds();
// The kind named `name`; an unknown name lists the kinds and suggests the closest.
Result<const CounterSourceKind*> find_counter_source_kind(std::string_view name);

// Checks a counter's setting when the group is parsed (a perf event name, a
// regular expression): "" when fine, else a message for the user.
std::string check_counter_setting(const CounterSourceKind& kind, const std::string& value);

// Parses an unsigned counter value as a source prints it: decimal or 0x hex,
// surrounding blanks allowed.
std::optional<std::uint64_t> parse_counter_value(std::string_view text);

}  // namespace harness
