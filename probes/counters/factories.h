// The factories listed in the source table (sources.cc); each kind lives in
// its own file. Tests may call them directly.
#pragma once

#include "probes/counters/perf_event.h"
#include "probes/counters/sources.h"

namespace harness {

// sysfs/debugfs text: a file of "key: value" / "key=value" lines, or a
// directory holding one number per file (the counter's key is the file name).
Result<std::unique_ptr<CounterSource>> make_text_file_source(const CounterSourceSpec& spec,
                                                             const std::vector<CounterSpec>& counters,
                                                             const CounterSourceOptions& options);

// A vendor tool run for every reading; a regular expression per counter
// picks its value out of the tool's standard output.
Result<std::unique_ptr<CounterSource>> make_command_source(const CounterSourceSpec& spec,
                                                           const std::vector<CounterSpec>& counters,
                                                           const CounterSourceOptions& options);

// Readings recorded earlier (JSON), handed out one snapshot per read: the
// source for replaying a rig's counters without the rig, and for tests.
Result<std::unique_ptr<CounterSource>> make_recorded_source(const CounterSourceSpec& spec,
                                                            const std::vector<CounterSpec>& counters,
                                                            const CounterSourceOptions& options);

}  // namespace harness
