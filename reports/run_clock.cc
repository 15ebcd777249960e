#include "reports/run_clock.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/base/bounded_json.h"
#include "harness/base/input_limits.h"

namespace harness {

RunClock run_clock(const Recording& r) {
  RunClock clock;
  auto consider = [&](std::uint64_t ns) { clock.t0_ns = clock.t0_ns ? std::min(*clock.t0_ns, ns) : ns; };
  if (r.latency)
    for (const LatencyCondition& c : r.latency->conditions)
      if (c.origin_host_ns) consider(*c.origin_host_ns);
  const bool window = r.rig && r.rig->window && r.rig->window->origin_host_ns > 0;
  if (window) consider(r.rig->window->origin_host_ns);
  auto at = [&](std::uint64_t ns) { return (static_cast<double>(ns) - static_cast<double>(*clock.t0_ns)) * 1e-9; };
  if (window && clock.t0_ns) clock.window_origin_s = at(r.rig->window->origin_host_ns);
  if (!r.latency) return clock;
  double next_free_s = 0;  // where a condition without a host time is placed
  for (const LatencyCondition& c : r.latency->conditions) {
    ConditionClock cc;
    cc.on_host_clock = c.origin_host_ns && clock.t0_ns;
    cc.origin_s = cc.on_host_clock ? at(*c.origin_host_ns) : next_free_s;
    // acquire_latency.cc: the power readings count from the first measured iteration's start.
    cc.power_origin_s = cc.origin_s + (c.start_s.empty() ? 0 : c.start_s.front());
    next_free_s = std::max(next_free_s, cc.origin_s + c.window_s);
    clock.conditions.push_back(cc);
  }
  return clock;
}

std::vector<double> dq_window_starts(const Recording& r, const RunClock& clock, std::size_t windows) {
  if (!clock.window_origin_s || windows == 0) return {};
  const RigRecording::Window& w = *r.rig->window;
  if (!w.capture_start_s || !w.capture_end_s) return {};
  const double from = *clock.window_origin_s + *w.capture_start_s;
  const double step = (*w.capture_end_s - *w.capture_start_s) / static_cast<double>(windows);
  std::vector<double> starts(windows);
  for (std::size_t k = 0; k < windows; ++k) starts[k] = from + static_cast<double>(k) * step;
  return starts;
}

std::vector<const char*> iteration_sides(const LatencyCondition& c) {
  std::vector<const char*> side(c.start_s.size(), "");
  for (const PairedBlock& b : c.blocks)
    for (std::size_t i = b.first; i < b.first + b.count && i < side.size(); ++i)
      side[i] = b.reference ? "reference" : "candidate";
  return side;
}

Result<Recording> stored_recording(const RunRecord& run) {
  if (run.recording_json.empty()) {
    return Error::input(fmt::format("run {} has no recording (it never finished acquiring)", run.id));
  }
  Result<nlohmann::json> stored =
      parse_bounded_json(run.recording_json, fmt::format("run {}'s stored recording", run.id));
  if (!stored) return Error::infra(stored.error().message);
  try {
    return stored->get<Recording>();
  } catch (const nlohmann::json::exception& e) {
    return Error::infra(fmt::format("run {}'s stored recording is corrupt: {}", run.id, e.what()));
  }
}

}  // namespace harness
