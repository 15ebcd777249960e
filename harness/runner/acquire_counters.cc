#include <fmt/format.h>

#include "harness/runner/acquire.h"
#include "probes/counters/session.h"
#include "probes/kernels.h"
#include "probes/process.h"

namespace harness {

// Counters are read before and after `iterations` runs of the workload, and
// between its `windows` (consecutive, of nearly equal length: window k ends
// after iteration floor((k + 1) * iterations / windows)). A counter that cannot be read, or that vanished or went
// backwards during the run, is recorded with its reason and reported as
// unavailable by the analysis; the run goes on with the other counters.
// Only a broken workload or a wrong source setting aborts the run.
Status acquire_counters(const AcquireContext& ctx, CountersRecording& out) {
  const Scenario& s = ctx.scenario;
  if (!s.counters) return ok();
  const CountersConfig& cfg = *s.counters;
  const Workload& w = s.workload;

  std::unique_ptr<KernelInstance> kernel;
  if (w.kind == Workload::Kind::builtin) {
    Result<std::unique_ptr<KernelInstance>> made = make_kernel(w.builtin);
    if (!made) return made.error().within("workload");
    kernel = std::move(*made);
    kernel->run();  // warm-up: first-touch page faults are set-up, not the workload
  }
  auto iteration = [&]() -> Status {
    if (kernel) {
      kernel->run();
      return ok();
    }
    Result<CommandResult> r = run_command(w.command, {.timeout_s = w.timeout_s, .max_output = 64 * 1024});
    if (!r) return r.error().within("workload");
    if (!r->succeeded()) {
      std::string tail = r->err.size() > 400 ? r->err.substr(r->err.size() - 400) : r->err;
      return Error::infra(fmt::format("workload {} {}; last output: {}", w.command.front(), r->describe_end(),
                                      tail.empty() ? "(none)" : tail));
    }
    return ok();
  };

  CounterSourceOptions options;
  options.follow_children = w.kind == Workload::Kind::command;
  Result<CounterSession> session = CounterSession::open(cfg.session_sources(), options);
  if (!session) return session.error();
  // One step: the counted iterations (the session opens in no time).
  StepProgress steps(ctx.progress, ctx.clock, Level::counters, 1, "iterations");
  steps.begin("workload", cfg.iterations);
  session->read_before();
  std::int64_t window = 0;
  for (std::int64_t i = 0; i < cfg.iterations; ++i) {
    if (ctx.stop.stop_requested()) return interrupted_error();
    HARNESS_TRY(iteration());
    if (i + 1 < cfg.iterations && i + 1 == window_end(cfg.iterations, cfg.windows, window)) {
      session->read_between(i + 1);
      ++window;
    }
    steps.advance(i + 1);
  }
  session->read_after();
  out.iterations = cfg.iterations;
  out.windows = cfg.windows;
  for (const CounterGroup& g : cfg.groups) out.groups.push_back({g.name, g.path, g.sha256});
  out.readings = session->readings();
  if (out.readings.empty()) out.unavailable = "the counter groups define no counters";
  return ok();
}

}  // namespace harness
