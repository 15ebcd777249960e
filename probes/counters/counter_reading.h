// What a counter session records for one counter: raw values as the source
// gave them. Level 2's analysis (harness/levels/counters.h) turns them into
// deltas.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace harness {

struct CounterReading {
  std::string name;    // "task-clock", "MEM_STALL_CYCLES"
  std::string source;  // "perf_event:perf", "text_file:/sys/..."
  std::string unit;    // "ns", "events", "cycles"
  int width = 64;      // bits the counter holds: its values wrap at 2^width
  double scale = 1;    // the delta is multiplied by it
  std::optional<std::uint64_t> before;
  std::optional<std::uint64_t> after;
  // Readings between the windows of the run ([counters] windows; after each
  // iteration but the last with read_each_iteration): every step is checked,
  // and a counter may wrap once per step rather than once per run.
  std::vector<std::uint64_t> between;
  std::optional<std::uint64_t> delta;  // a source that reports the delta itself
  // perf_event: time enabled and running at each reading, for multiplexing
  // (the _between ones beside `between`, when the source gives them).
  std::optional<std::uint64_t> enabled_before, enabled_after, running_before, running_after;
  std::vector<std::uint64_t> enabled_between, running_between;
  std::string unavailable;  // why a reading is missing (an errno text, a vanished file...)
};

}  // namespace harness
