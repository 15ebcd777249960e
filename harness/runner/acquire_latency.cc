#include <chrono>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/runner/acquire.h"
#include "probes/load/background_load.h"
#include "probes/power/power_source.h"
#include "probes/workload/workload_runner.h"

namespace harness {

Error interrupted_error() { return Error::infra("interrupted"); }

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

// The warm-up, then iterations until both the iteration count and the
// minimum duration are met, within the whole-window timeout (checked between
// iterations; each iteration has the workload's own timeout).
Status measure_window(const AcquireContext& ctx, WorkloadRunner& runner, PowerRecorder* power,
                      LatencyCondition& out) {
  const LatencyConfig& cfg = *ctx.scenario.latency;
  const double iteration_timeout = ctx.scenario.workload.timeout_s;
  for (std::int64_t i = 0; i < cfg.warmup; ++i) {
    if (ctx.stop.stop_requested()) return interrupted_error();
    HARNESS_TRY(runner.next(iteration_timeout));
  }
  if (power) HARNESS_TRY(power->begin());
  const std::uint64_t window_start = ctx.clock.now_ns();
  const std::uint64_t timeout_ns = static_cast<std::uint64_t>(cfg.run_timeout_s * 1e9);
  const std::uint64_t min_ns = static_cast<std::uint64_t>(cfg.min_duration_s * 1e9);
  std::uint64_t last_end = window_start;
  out.start_s.reserve(static_cast<std::size_t>(cfg.iterations));
  out.latency_s.reserve(static_cast<std::size_t>(cfg.iterations));
  Status status = ok();
  while (static_cast<std::int64_t>(out.latency_s.size()) < cfg.iterations || last_end - window_start < min_ns) {
    if (ctx.stop.stop_requested()) {
      status = interrupted_error();
      break;
    }
    if (last_end - window_start > timeout_ns) {  // the last iteration's end: no extra clock reading
      status = Error::infra(fmt::format("latency: the measured window timed out after {:.3g} s with {} of {} iterations",
                                        cfg.run_timeout_s, out.latency_s.size(), cfg.iterations));
      break;
    }
    Result<IterationSample> s = runner.next(iteration_timeout);
    if (!s) {
      status = s.error();
      break;
    }
    const double start = static_cast<double>(s->end_ns - window_start) * 1e-9 - s->latency_s;
    out.start_s.push_back(start);
    out.latency_s.push_back(s->latency_s);
    last_end = std::max(last_end, s->end_ns);
  }
  out.window_s = static_cast<double>(last_end - window_start) * 1e-9;
  if (power) {
    PowerTrace t = power->end();
    out.power = {t.source, t.quantity, t.t_s, t.value, t.unavailable};
  }
  return status;
}

Status measure_condition(const AcquireContext& ctx, const LoadCondition& load, PowerRecorder* power,
                         LatencyCondition& out) {
  const LatencyConfig& cfg = *ctx.scenario.latency;
  std::unique_ptr<BackgroundLoad> background;
  if (!load.argv.empty()) {
    Result<std::unique_ptr<BackgroundLoad>> started = BackgroundLoad::start(load.argv);
    if (!started) return started.error();
    background = std::move(*started);
  }
  // Stops the load on every path; its end and output are kept.
  auto stop_load = [&] {
    if (!background) return;
    LoadOutcome o = background->stop();
    out.load_end = o.end.describe();
    out.load_output = o.output;
    background.reset();
  };
  Status status = ok();
  if (background) status = settle(ctx, cfg.load_settle_s);
  if (status && background) status = background->check_alive();
  if (status) {
    Result<std::unique_ptr<WorkloadRunner>> runner = make_workload_runner(ctx.scenario.workload, ctx.clock);
    if (!runner) {
      status = runner.error();
    } else {
      (*runner)->set_stop_token(ctx.stop);
      status = (*runner)->start();
      if (status) status = measure_window(ctx, **runner, power, out);
      (*runner)->stop();
    }
  }
  if (status && background) status = background->check_alive();
  stop_load();
  return status;
}

}  // namespace

Status check_latency_plan(const Scenario& s) {
  if (!s.latency) return ok();
  HARNESS_TRY(check_workload_command(s.workload));
  for (const LoadCondition& load : s.latency->loads) {
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
  if (w.kind == Workload::Kind::builtin) {
    out.source = "builtin:" + w.builtin.kind;
  } else {
    out.source = (w.report.active() ? "stream:" : "command:") + w.command.front();
  }
  Result<PowerOpen> power = open_power_source(s.latency->power);
  if (!power) return power.error();
  for (const LoadCondition& load : s.latency->loads) {
    out.conditions.emplace_back();
    LatencyCondition& c = out.conditions.back();
    c.name = load.name;
    c.load = load.argv;
    c.power.unavailable = power->unavailable;
    HARNESS_TRY(measure_condition(ctx, load, power->recorder.get(), c));
  }
  return ok();
}

}  // namespace harness
