#include "reports/chrome_trace.h"

#include <algorithm>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "reports/run_clock.h"


namespace harness {
namespace {

constexpr int kPid = 1;

// Events and the tracks (threads) they sit on, in the order tracks appear.
class TraceBuilder {
 public:
  int track(const std::string& name) {
    auto [it, inserted] = tracks_.emplace(name, static_cast<int>(tracks_.size()) + 1);
    if (inserted) order_.push_back(name);
    return it->second;
  }
  void slice(const std::string& track_name, const std::string& name, const std::string& cat, double ts_us,
             double dur_us, nlohmann::json args = nlohmann::json::object()) {
    events_.push_back({{"name", name}, {"cat", cat}, {"ph", "X"}, {"ts", ts_us}, {"dur", std::max(0.0, dur_us)},
                       {"pid", kPid}, {"tid", track(track_name)}, {"args", std::move(args)}});
  }
  // A counter track: Perfetto and chrome://tracing draw one per name.
  void counter(const std::string& name, double ts_us, const std::string& series, double value) {
    events_.push_back({{"name", name}, {"ph", "C"}, {"ts", ts_us}, {"pid", kPid}, {"tid", 0},
                       {"args", {{series, value}}}});
  }
  nlohmann::json finish(const std::string& process_name) {
    // One order for every track: by time (stable, so equal times keep the
    // order they were added in), metadata first.
    std::stable_sort(events_.begin(), events_.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
      return a["ts"].get<double>() < b["ts"].get<double>();
    });
    nlohmann::json all = nlohmann::json::array();
    all.push_back({{"name", "process_name"}, {"ph", "M"}, {"ts", 0}, {"pid", kPid}, {"tid", 0},
                   {"args", {{"name", process_name}}}});
    for (const std::string& name : order_) {
      const int tid = tracks_.at(name);
      all.push_back({{"name", "thread_name"}, {"ph", "M"}, {"ts", 0}, {"pid", kPid}, {"tid", tid},
                     {"args", {{"name", name}}}});
      all.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"ts", 0}, {"pid", kPid}, {"tid", tid},
                     {"args", {{"sort_index", tid}}}});
    }
    for (nlohmann::json& e : events_) all.push_back(std::move(e));
    return all;
  }

 private:
  std::map<std::string, int> tracks_;
  std::vector<std::string> order_;
  std::vector<nlohmann::json> events_;
};

double us(double s) { return s * 1e6; }

void add_power(TraceBuilder& t, const LatencyCondition& c, double origin_us) {
  if (c.power.t_s.empty()) return;
  const bool energy = c.power.quantity == "energy";
  const std::string name = fmt::format("{} ({}): {}", energy ? "energy" : "power", energy ? "J" : "W", c.power.source);
  for (std::size_t k = 0; k < c.power.t_s.size() && k < c.power.value.size(); ++k)
    t.counter(name, origin_us + c.power.t_s[k] * 1e6, energy ? "J" : "W", c.power.value[k]);
}

// Level 2 read in level 4's paired rounds: each block's readings at its
// edges (before at its first iteration's start, after at its last one's
// end), on a counter track per counter and side. A counter block is drawn
// on the condition's first block of its round and side not drawn yet.
void add_block_readings(TraceBuilder& t, const CountersRecording& counters, const LatencyCondition& c,
                        double offset_us, std::vector<std::string>& notes) {
  std::vector<bool> drawn(c.blocks.size(), false);
  for (std::size_t k = 0; k < counters.blocks.size(); ++k) {
    const CounterBlock& block = counters.blocks[k];
    std::optional<std::size_t> at;
    for (std::size_t n = 0; n < c.blocks.size() && !at; ++n) {
      const PairedBlock& b = c.blocks[n];
      if (!drawn[n] && b.round == block.round && (b.reference ? "reference" : "candidate") == block.side &&
          b.count > 0 && b.first + b.count <= c.start_s.size() && b.first + b.count <= c.latency_s.size())
        at = n;
    }
    if (!at) {
      notes.push_back(fmt::format("counters: block {} (round {}, {}) has no iterations of its own in condition "
                                  "\"{}\": its readings are not drawn",
                                  k + 1, block.round + 1, block.side, c.name));
      continue;
    }
    drawn[*at] = true;
    const PairedBlock& b = c.blocks[*at];
    const std::size_t last = b.first + b.count - 1;
    for (const CounterReading& r : block.readings) {
      if (!r.before || !r.after) continue;
      const std::string name =
          fmt::format("counter {} ({}): {} [{}]", r.name, r.unit.empty() ? "count" : r.unit, c.name, block.side);
      t.counter(name, offset_us + c.start_s[b.first] * 1e6, "value", static_cast<double>(*r.before));
      t.counter(name, offset_us + (c.start_s[last] + c.latency_s[last]) * 1e6, "value", static_cast<double>(*r.after));
    }
  }
}

// Each load condition: its iterations, the load running over its window,
// its power readings, level 2's readings of its paired blocks. Returns the
// iteration slices written.
std::size_t add_latency(TraceBuilder& t, const Recording& r, const RunClock& clock, std::vector<std::string>& notes) {
  if (!r.latency) return 0;
  std::size_t slices = 0;
  for (std::size_t n = 0; n < r.latency->conditions.size(); ++n) {
    const LatencyCondition& c = r.latency->conditions[n];
    const ConditionClock& cc = clock.conditions[n];
    const double offset = us(cc.origin_s);
    if (!cc.on_host_clock) {
      notes.push_back(fmt::format("condition \"{}\": the recording has no host time for it (recorded before "
                                  "origin_host_ns was kept); placed after the condition before it",
                                  c.name));
    }
    // With a same-run reference each side has a track of its own, and each
    // block is a slice of its round on the condition's "rounds" track.
    const std::vector<const char*> side = iteration_sides(c);
    for (const PairedBlock& b : c.blocks) {
      if (b.count == 0 || b.first + b.count > c.start_s.size() || b.first + b.count > c.latency_s.size()) continue;
      const std::size_t last = b.first + b.count - 1;
      t.slice(fmt::format("rounds: {}", c.name), fmt::format("round {}: {}", b.round + 1, b.reference ? "reference" : "candidate"),
              "paired", offset + c.start_s[b.first] * 1e6,
              (c.start_s[last] + c.latency_s[last] - c.start_s[b.first]) * 1e6,
              {{"round", b.round + 1}, {"side", b.reference ? "reference" : "candidate"}, {"iterations", b.count}});
    }
    for (std::size_t i = 0; i < c.start_s.size() && i < c.latency_s.size(); ++i) {
      t.slice(iteration_track_name(c.name, side[i]), "iteration", "latency", offset + c.start_s[i] * 1e6,
              c.latency_s[i] * 1e6, {{"index", i}, {"latency_ms", c.latency_s[i] * 1e3}, {"condition", c.name}});
      ++slices;
    }
    t.slice("conditions", "condition " + c.name, "latency", offset, c.window_s * 1e6,
            {{"iterations", c.start_s.size()}});
    if (!c.load.empty()) {
      t.slice("background load", fmt::format("{}", fmt::join(c.load, " ")), "stress", offset, c.window_s * 1e6,
              {{"condition", c.name}, {"ended", c.load_end},
               {"note", "the load ran over the whole measured window (started before the warm-up)"}});
    }
    add_power(t, c, us(cc.power_origin_s));
    const CountersRecording* counted = r.counters ? &*r.counters : nullptr;
    if (counted && counted->window == "latency" && !counted->blocks.empty() && counted->window_condition == c.name)
      add_block_readings(t, *counted, c, offset, notes);
  }
  return slices;
}

// The level window the host's instruments shared: its span, the iterations
// or request inside it, the analyzer's capture, the power readings, and the
// counter readings taken around it.
void add_rig_window(TraceBuilder& t, const RunRecord& run, const Recording& r, const RunClock& clock,
                    std::vector<std::string>& notes) {
  if (!r.rig || !r.rig->window || !clock.window_origin_s) return;
  const RigRecording::Window& w = *r.rig->window;
  const double origin = us(*clock.window_origin_s);
  const std::string track = "level windows";
  t.slice(track, fmt::format("{} window{}", w.level, w.condition.empty() ? "" : " (" + w.condition + ")"), "window",
          origin, w.closed_s * 1e6);
  t.slice(track, w.level == "latency" ? "measured iterations" : "workload request", "window",
          origin + w.iterations_start_s * 1e6, (w.iterations_end_s - w.iterations_start_s) * 1e6);
  if (w.capture_start_s && w.capture_end_s)
    t.slice("analyzer", "capture", "ddr", origin + *w.capture_start_s * 1e6, (*w.capture_end_s - *w.capture_start_s) * 1e6);
  if (w.power_start_s && w.power_end_s)
    t.slice("power meter", "readings", "power", origin + *w.power_start_s * 1e6, (*w.power_end_s - *w.power_start_s) * 1e6);
  // DQ bus activity: the timeline's windows cover the capture in order.
  const SampleSet* dq = run.analysis.find_samples("ddr.dq_active_timeline");
  if (dq && !dq->values.empty()) {
    const std::vector<double> starts = dq_window_starts(r, clock, dq->values.size());
    if (!starts.empty()) {
      for (std::size_t k = 0; k < dq->values.size(); ++k)
        t.counter("DQ bus activity", us(starts[k]), "utilisation", dq->values[k]);
    } else {
      notes.push_back("DQ activity: the capture was not placed on the host's clock (no analyzer in the window)");
    }
  }
  // Counter readings: the one before and the one after level 2's request
  // (its own window), or the window's measured iterations (level 2 read in
  // level 4's window); readings between windows carry no time of their own.
  // The blocks of level 4's paired rounds are drawn with their condition.
  const bool counted_here = r.counters && (w.level == "counters" || (w.level == "latency" && r.counters->window == "latency"));
  if (r.counters && r.counters->window == "none")
    notes.push_back("counters: read around level 2's own iterations, in a request outside the measurement window: not drawn");
  if (counted_here) {
    for (const CounterReading& c : r.counters->readings) {
      if (!c.before || !c.after) continue;
      const std::string name = fmt::format("counter {} ({})", c.name, c.unit.empty() ? "count" : c.unit);
      t.counter(name, origin + w.iterations_start_s * 1e6, "value", static_cast<double>(*c.before));
      t.counter(name, origin + w.iterations_end_s * 1e6, "value", static_cast<double>(*c.after));
    }
    if (r.counters->windows > 1)
      notes.push_back("counters: readings between windows carry no time of their own; only the first and last are drawn");
  }
}

}  // namespace

std::string iteration_track_name(const std::string& condition, const std::string& side) {
  return side.empty() ? fmt::format("iterations: {}", condition) : fmt::format("iterations: {} [{}]", condition, side);
}

RunTrace run_trace(const RunRecord& run, const Recording& recording) {
  RunTrace out;
  TraceBuilder t;
  const RunClock clock = run_clock(recording);
  if (!clock.t0_ns && recording.latency)
    out.notes.push_back("the recording has no host times: conditions are laid out one after another from 0");
  out.iteration_slices = add_latency(t, recording, clock, out.notes);
  add_rig_window(t, run, recording, clock, out.notes);
  if (recording.rig && recording.rig->window && !clock.window_origin_s)
    out.notes.push_back("the rig window has no host time: not drawn");
  nlohmann::json other = {{"run", run.id},
                          {"scenario", run.scenario_name},
                          {"rig", run.rig},
                          {"started_at", run.started_at},
                          {"clock", "the harness host's monotonic clock, microseconds from the earliest recorded instant"},
                          {"notes", out.notes}};
  out.doc = {{"traceEvents", t.finish(fmt::format("harness run {}: {}", run.id, run.scenario_name))},
             {"displayTimeUnit", "ms"},
             {"otherData", other}};
  return out;
}

}  // namespace harness
