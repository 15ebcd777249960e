#include <algorithm>
#include <chrono>
#include <optional>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/runner/acquire.h"
#include "harness/runner/paired_rounds.h"
#include "harness/runner/stability_readings.h"
#include "probes/load/background_load.h"
#include "probes/power/power_source.h"
#include "harness/rig/local_device.h"
#include "probes/workload/workload_runner.h"

namespace harness {

namespace {

// Sleeps in small steps so that a stop request is seen promptly.
Status settle(const AcquireContext& ctx, double seconds) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (ctx.stop.stop_requested()) return interrupted_error();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return ok();
}

// Waits (at most 3 s: a meter that stays silent is the trace's to report)
// until the power recorder has a reading at or after `host_ns`.
void wait_for_reading(const AcquireContext& ctx, PowerRecorder& power, std::uint64_t host_ns) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while ((power.covered_until_ns() == 0 || power.covered_until_ns() < host_ns) &&
         std::chrono::steady_clock::now() < deadline && !ctx.stop.stop_requested()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

// A power trace keeps the readings that cover the measured iterations: the
// last one at or before the first iteration's start, the first one at or
// after the last iteration's end, and all between; its times count from the
// first iteration's start. (The recorder ran from before the warm-up: the
// device starts measuring at a moment the host learns only afterwards.)
PowerSeries cover_iterations(const PowerTrace& t, std::uint64_t from_ns, std::uint64_t to_ns) {
  PowerSeries p{t.source, t.quantity, {}, {}, t.unavailable};
  if (t.t_s.empty()) return p;
  const double from = (static_cast<double>(from_ns) - static_cast<double>(t.start_ns)) * 1e-9;
  const double to = (static_cast<double>(to_ns) - static_cast<double>(t.start_ns)) * 1e-9;
  std::size_t first = 0, last = t.t_s.size() - 1;
  for (std::size_t i = 0; i < t.t_s.size(); ++i) {
    if (t.t_s[i] <= from) first = i;
  }
  for (std::size_t i = t.t_s.size(); i-- > 0;) {
    if (t.t_s[i] >= to) last = i;
  }
  if (last < first) last = first;
  for (std::size_t i = first; i <= last; ++i) {
    p.t_s.push_back(t.t_s[i] - from);
    p.value.push_back(t.value[i]);
  }
  return p;
}

// Level 4's progress: the condition measured now and the samples so far,
// reported as iterations arrive (the device sends them about every 250 ms).
struct LatencyProgress {
  const AcquireContext& ctx;
  std::uint64_t level_start_ns = 0;
  ProgressEvent event;  // the condition's fields filled in

  void report(ProgressEvent::Kind kind) {
    if (!ctx.progress) return;
    event.kind = kind;
    event.level = Level::latency;
    event.elapsed_s = static_cast<double>(ctx.clock.now_ns() - level_start_ns) * 1e-9;
    ctx.progress->report(event);
  }
};

// One condition's window: the device runs the warm-up and the measured
// iterations (the candidate's, or with a same-run reference both sides in
// rounds, paired_rounds.h) while the host's power recorder (and, for the
// scenario's window, the analyzer) runs around them.
Status measure_window(const AcquireContext& ctx, Device& device, PowerRecorder* power, WindowHooks* window,
                      LatencyProgress& progress, LatencyCondition& out) {
  const LatencyConfig& cfg = *ctx.scenario.latency;
  IterationPlan plan;
  plan.warmup = cfg.warmup;
  plan.iterations = cfg.iterations;
  plan.min_duration_s = cfg.min_duration_s;
  plan.run_timeout_s = cfg.run_timeout_s;
  plan.iteration_timeout_s = ctx.scenario.workload.timeout_s;
  // Level 2 rides the scenario's window (with a reference, in each block:
  // paired_rounds.h).
  const bool counted = window && ctx.counters_in_window;
  if (counted) {
    plan.counters = *ctx.scenario.counters;
    plan.counters->iterations = plan.iterations;
    plan.counters->windows = std::clamp<std::int64_t>(plan.counters->windows, 1, plan.iterations);
  }

  const std::uint64_t opened = ctx.clock.now_ns();
  if (window && window->record) window->record->origin_host_ns = opened;  // close() places the capture on it
  if (window) HARNESS_TRY(window->open());
  if (power) {
    HARNESS_TRY(power->begin());
    wait_for_reading(ctx, *power, 0);  // the trace starts before the workload does
  }
  std::vector<std::uint64_t> start_ns, end_ns;
  start_ns.reserve(static_cast<std::size_t>(cfg.iterations));
  end_ns.reserve(static_cast<std::size_t>(cfg.iterations));
  const std::int64_t samples_before = progress.event.samples;
  auto sink = [&](const IterationBatch& b) {
    start_ns.insert(start_ns.end(), b.start_ns.begin(), b.start_ns.end());
    end_ns.insert(end_ns.end(), b.end_ns.begin(), b.end_ns.end());
    ProgressEvent& e = progress.event;
    e.done = static_cast<std::int64_t>(start_ns.size());
    e.samples = samples_before + e.done;
    if (!start_ns.empty()) {
      const std::uint64_t now = ctx.clock.now_ns();
      e.measuring_s = static_cast<double>(now - std::min(now, start_ns.front())) * 1e-9;
    }
    if (window && window->captured_samples) e.analyzer_samples = window->captured_samples();
    progress.report(ProgressEvent::Kind::iterations);
  };
  Result<WorkloadWindow> ran =
      ctx.scenario.reference
          ? run_paired_rounds(ctx, device, plan, sink, start_ns, end_ns, out)
          : device.run_workload(ctx.scenario.workload, plan, sink, ctx.stop);
  PowerTrace trace;
  if (power) {
    // A reading past the last iteration's end, so that the trace covers it.
    std::uint64_t last = ran ? ran->end_ns : 0;
    for (std::uint64_t e : end_ns) last = std::max(last, e);
    wait_for_reading(ctx, *power, last);
    trace = power->end();
  }
  Status closed = window ? window->close() : ok();
  if (counted && ran && ran->counters) {
    CountersRecording& c = *ctx.counters_in_window;
    c = std::move(*ran->counters);
    c.window = "latency";
    c.window_condition = window->condition;
  }

  // Times count from the first measured iteration's start (what the device
  // reported as "measuring" when the window completed).
  const std::uint64_t origin = ran ? ran->measuring_ns : (start_ns.empty() ? opened : start_ns.front());
  std::uint64_t last_end = origin;
  for (std::size_t i = 0; i < start_ns.size(); ++i) {
    out.start_s.push_back((static_cast<double>(start_ns[i]) - static_cast<double>(origin)) * 1e-9);
    out.latency_s.push_back(static_cast<double>(end_ns[i] - std::min(end_ns[i], start_ns[i])) * 1e-9);
    last_end = std::max(last_end, end_ns[i]);
  }
  out.window_s = static_cast<double>(last_end - origin) * 1e-9;
  out.origin_host_ns = origin;
  if (power) out.power = cover_iterations(trace, start_ns.empty() ? origin : start_ns.front(), last_end);

  if (window && window->record) {
    RigRecording::Window& w = *window->record;
    w.level = window->level;
    w.condition = window->condition;
    w.origin_host_ns = opened;
    auto at = [&](std::uint64_t ns) { return (static_cast<double>(ns) - static_cast<double>(opened)) * 1e-9; };
    w.closed_s = at(ctx.clock.now_ns());
    w.iterations_origin_s = at(origin);
    if (!start_ns.empty()) {
      w.iterations_start_s = at(start_ns.front());
      w.iterations_end_s = at(last_end);
    }
    if (power && !out.power.t_s.empty()) {  // the readings kept, whose times count from the first iteration's start
      const double first_start = at(start_ns.empty() ? origin : start_ns.front());
      w.power_start_s = first_start + out.power.t_s.front();
      w.power_end_s = first_start + out.power.t_s.back();
    }
  }
  if (!ran) return ran.error();
  return closed;
}

Status measure_condition(const AcquireContext& ctx, Device& device, const LoadCondition& load, PowerRecorder* power,
                         WindowHooks* window, LatencyProgress& progress, LatencyCondition& out) {
  const LatencyConfig& cfg = *ctx.scenario.latency;
  std::optional<int> background;
  if (!load.argv.empty()) {
    Result<int> started = device.start_load(load.argv);
    if (!started) return started.error();
    background = *started;
  }
  Status status = ok();
  if (background) status = settle(ctx, cfg.load_settle_s);
  if (status && background) status = device.check_load(*background);
  if (status) {
    // The load, settled, is the harness's own: the readings see it at both ends.
    StabilityReadings around(ctx, device, Level::latency, load.name);
    status = measure_window(ctx, device, power, window, progress, out);
  }
  if (status && background) status = device.check_load(*background);
  // Stops the load on every path; its end and output are kept.
  if (background) {
    Result<LoadStopped> stopped = device.stop_load(*background);
    if (stopped) {
      out.load_end = stopped->end;
      out.load_output = stopped->output;
    } else if (status) {
      status = stopped.error();
    }
  }
  return status;
}

}  // namespace

std::string workload_source(const Workload& w) {
  if (w.kind == Workload::Kind::builtin) return "builtin:" + w.builtin.kind;
  return (w.report.active() ? "stream:" : "command:") + w.command.front();
}

Status check_latency_plan(const Scenario& s) {
  if (!s.latency) return ok();
  // The device's programs are the agent's to find; this host's only when it is the device.
  const bool local = s.rig.transport.kind == "local";
  if (local) HARNESS_TRY(check_workload_command(s.workload));
  if (local && s.reference) HARNESS_TRY(check_workload_command(s.reference->workload));
  for (const LoadCondition& load : s.latency->loads) {
    if (!local) break;
    Status st = check_load_command(load.argv);
    if (!st) {
      return st.error().within(fmt::format("{}: [latency] load \"{}\"", load.where, fmt::join(load.argv, " ")));
    }
  }
  Result<PowerOpen> power = open_power_source(s.latency->power);
  if (!power) return power.error();
  return ok();
}

Status acquire_latency(const AcquireContext& ctx, LatencyRecording& out) {
  const Scenario& s = ctx.scenario;
  if (!s.latency) return ok();
  const Workload& w = s.workload;
  out.source = workload_source(w);
  if (s.reference) {
    out.reference_source = workload_source(s.reference->workload);
    out.pairing = pairing_text(*s.reference, ctx.pairing_seed);
  }
  Result<PowerOpen> power = open_power_source(s.latency->power);
  if (!power) return power.error();
  std::unique_ptr<LocalDevice> local;
  Device* device = ctx.device;
  if (!device) {
    local = std::make_unique<LocalDevice>(ctx.clock);
    device = local.get();
  }
  LatencyProgress progress{ctx, ctx.clock.now_ns(), {}};
  progress.event.condition_count = static_cast<int>(s.latency->loads.size());
  progress.event.planned = s.reference ? 2 * paired_block_iterations(s) * s.reference->rounds : s.latency->iterations;
  progress.event.min_duration_s = s.latency->min_duration_s;
  for (std::size_t i = 0; i < s.latency->loads.size(); ++i) {
    const LoadCondition& load = s.latency->loads[i];
    out.conditions.emplace_back();
    LatencyCondition& c = out.conditions.back();
    c.name = load.name;
    c.load = load.argv;
    c.power.unavailable = power->unavailable;
    // The scenario's window: the named condition, else the first.
    WindowHooks* window = nullptr;
    if (ctx.window && ctx.window->level == "latency" &&
        (ctx.window->condition.empty() ? i == 0 : ctx.window->condition == load.name)) {
      window = ctx.window;
      window->condition = load.name;
    }
    ProgressEvent& e = progress.event;
    e.condition = load.name;
    e.condition_index = static_cast<int>(i) + 1;
    e.text = load.argv.empty() ? "without load" : "under load \"" + fmt::format("{}", fmt::join(load.argv, " ")) + "\"";
    e.done = 0;
    e.measuring_s = 0;
    progress.report(ProgressEvent::Kind::condition_started);
    HARNESS_TRY(measure_condition(ctx, *device, load, power->recorder.get(), window, progress, c));
    e.done = static_cast<std::int64_t>(c.latency_s.size());
    e.measuring_s = c.window_s;
    progress.report(ProgressEvent::Kind::condition_finished);
  }
  return ok();
}

}  // namespace harness
