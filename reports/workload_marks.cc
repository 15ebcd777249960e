#include "reports/workload_marks.h"

#include <algorithm>
#include <cmath>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "reports/run_clock.h"

namespace harness {
namespace {

constexpr const char* kIterationColour = "#1e8449";
constexpr const char* kReferenceColour = "#7d3c98";

bool has_reference(const Recording& r) {
  if (!r.latency) return false;
  return std::any_of(r.latency->conditions.begin(), r.latency->conditions.end(),
                     [](const LatencyCondition& c) { return !c.blocks.empty(); });
}

// Lane 0 holds the candidate's iterations (every iteration without a
// reference), lane 1 the reference's.
std::vector<svg::MarkLane> lanes_for(bool reference) {
  if (!reference) return {{"iterations", kIterationColour}};
  return {{"candidate", kIterationColour}, {"reference", kReferenceColour}};
}

// A condition's iterations as spans of a chart's x axis whose 0 is `zero_s`
// on the run's clock.
void add_iteration_marks(const LatencyCondition& c, const ConditionClock& clock, double zero_s,
                         std::vector<svg::MarkSpan>& out) {
  const std::vector<const char*> side = iteration_sides(c);
  for (std::size_t i = 0; i < c.start_s.size() && i < c.latency_s.size(); ++i) {
    const double start = clock.origin_s + c.start_s[i] - zero_s;
    out.push_back({start, start + c.latency_s[i], std::string_view(side[i]) == "reference" ? 1u : 0u});
  }
}

}  // namespace

std::string mark_dq_timeline(const Result<Recording>& recording, svg::LineSpec& spec) {
  if (!recording) return fmt::format("No iteration marks: the run's recording cannot be read ({}).", recording.error().message);
  const Recording& r = *recording;
  if (!r.rig || !r.rig->window)
    return "No iteration marks: the recording has no measurement window (the capture was taken on its own, or "
           "recorded before window times were kept), so the capture has no time on the host's clock.";
  const RigRecording::Window& w = *r.rig->window;
  const RunClock clock = run_clock(r);
  const std::vector<double> starts = dq_window_starts(r, clock, spec.ys.size());
  if (starts.empty())
    return "No iteration marks: the capture was not taken inside the measurement window (an imported capture), "
           "so it has no time on the host's clock.";
  const double zero = starts.front(), span = *w.capture_end_s - *w.capture_start_s;
  spec.xs.clear();
  for (double s : starts) spec.xs.push_back(s - zero);
  spec.x_range = std::make_pair(0.0, span);
  spec.x_title = "time from the capture's first sample";
  spec.x_format = svg::time_format(span);
  if (w.level != "latency")
    return fmt::format("No iteration marks: the analyzer rode the {} level's window, whose iterations carry no times "
                       "of their own.", w.level);
  std::vector<svg::MarkSpan> marks;
  if (r.latency)
    for (std::size_t n = 0; n < r.latency->conditions.size(); ++n)
      if (clock.conditions[n].on_host_clock) add_iteration_marks(r.latency->conditions[n], clock.conditions[n], zero, marks);
  std::erase_if(marks, [&](const svg::MarkSpan& m) { return m.x1 < 0 || m.x0 > span; });
  if (marks.empty()) return "No iteration marks: none of level 4's measured iterations has a host time inside the capture.";
  spec.lanes = lanes_for(has_reference(r));
  spec.marks = std::move(marks);
  return "";
}

std::vector<PowerChart> power_charts(const Recording& r) {
  std::vector<PowerChart> out;
  if (!r.latency) return out;
  const RunClock clock = run_clock(r);
  for (std::size_t n = 0; n < r.latency->conditions.size(); ++n) {
    const LatencyCondition& c = r.latency->conditions[n];
    const PowerSeries& p = c.power;
    const std::size_t k = std::min(p.t_s.size(), p.value.size());
    const bool energy = p.quantity == "energy";
    if (!p.unavailable.empty() || k == 0 || (!energy && p.quantity != "power")) continue;
    PowerChart chart;
    svg::LineSpec& spec = chart.spec;
    if (energy) {  // the mean power between consecutive readings, at the middle of each interval
      for (std::size_t j = 1; j < k; ++j) {
        const double dt = p.t_s[j] - p.t_s[j - 1], watts = (p.value[j] - p.value[j - 1]) / dt;
        if (!(dt > 0) || !(watts >= 0) || !std::isfinite(watts)) continue;  // a counter that wrapped or stood still
        spec.xs.push_back(p.t_s[j - 1] + dt / 2);
        spec.ys.push_back(watts);
      }
      if (spec.ys.empty()) continue;
    } else {
      spec.xs.assign(p.t_s.begin(), p.t_s.begin() + static_cast<std::ptrdiff_t>(k));
      spec.ys.assign(p.value.begin(), p.value.begin() + static_cast<std::ptrdiff_t>(k));
    }
    spec.title = fmt::format("power {}{}", c.load.empty() ? "without load" : fmt::format("under load: {}", fmt::join(c.load, " ")),
                             energy ? " (from energy readings)" : "");
    spec.y_title = "power (W)";
    spec.x_title = "time from the first measured iteration";
    std::vector<svg::MarkSpan> marks;
    add_iteration_marks(c, clock.conditions[n], clock.conditions[n].power_origin_s, marks);
    double lo = std::min(0.0, p.t_s.front()), hi = p.t_s[k - 1];
    for (const svg::MarkSpan& m : marks) hi = std::max(hi, m.x1);
    spec.x_range = std::make_pair(lo, hi);
    spec.x_format = svg::time_format(std::max(std::fabs(lo), std::fabs(hi)));
    if (marks.empty()) {
      chart.no_marks = fmt::format("No iteration marks on \"{}\": no iteration was measured under it.", spec.title);
    } else {
      spec.lanes = lanes_for(!c.blocks.empty());
      spec.marks = std::move(marks);
    }
    out.push_back(std::move(chart));
  }
  return out;
}

}  // namespace harness
