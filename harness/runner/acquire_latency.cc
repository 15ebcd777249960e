#include <fmt/format.h>

#include "harness/runner/acquire.h"
#include "probes/kernels.h"
#include "probes/process.h"

namespace harness {

Error interrupted_error() { return Error::infra("interrupted"); }

namespace {

// Runs `iteration` for the warm-up, then until both the iteration count and
// the minimum duration are met, within the whole-run timeout.
template <class Iteration>
Status measure_iterations(const AcquireContext& ctx, LatencyRecording& out, Iteration&& iteration) {
  const LatencyConfig& cfg = *ctx.scenario.latency;
  for (std::int64_t i = 0; i < cfg.warmup; ++i) {
    if (ctx.stop.stop_requested()) return interrupted_error();
    HARNESS_TRY(iteration());
  }
  const std::uint64_t window_start = ctx.clock.now_ns();
  const std::uint64_t timeout_ns = static_cast<std::uint64_t>(cfg.run_timeout_s * 1e9);
  const std::uint64_t min_ns = static_cast<std::uint64_t>(cfg.min_duration_s * 1e9);
  std::uint64_t now = window_start;
  while (static_cast<std::int64_t>(out.latency_s.size()) < cfg.iterations || now - window_start < min_ns) {
    if (ctx.stop.stop_requested()) return interrupted_error();
    if (now - window_start > timeout_ns) {
      return Error::infra(fmt::format("latency: the run timed out after {:.3g} s with {} of {} iterations",
                                      cfg.run_timeout_s, out.latency_s.size(), cfg.iterations));
    }
    std::uint64_t t0 = ctx.clock.now_ns();
    HARNESS_TRY(iteration());
    now = ctx.clock.now_ns();
    out.start_s.push_back(static_cast<double>(t0 - window_start) * 1e-9);
    out.latency_s.push_back(static_cast<double>(now - t0) * 1e-9);
  }
  out.window_s = static_cast<double>(now - window_start) * 1e-9;
  return ok();
}

}  // namespace

Status acquire_latency(const AcquireContext& ctx, LatencyRecording& out) {
  const Scenario& s = ctx.scenario;
  if (!s.latency) return ok();
  const Workload& w = s.workload;
  if (w.kind == Workload::Kind::builtin) {
    out.source = "builtin:" + w.builtin.kind;
    Result<std::unique_ptr<KernelInstance>> kernel = make_kernel(w.builtin);
    if (!kernel) return kernel.error().within("workload");
    KernelInstance& k = **kernel;
    return measure_iterations(ctx, out, [&]() -> Status {
      k.run();
      return ok();
    });
  }
  out.source = "command:" + w.command.front();
  return measure_iterations(ctx, out, [&]() -> Status {
    Result<CommandResult> r = run_command(w.command, {.timeout_s = w.timeout_s, .max_output = 64 * 1024});
    if (!r) return r.error().within("workload");
    if (!r->succeeded()) {
      std::string tail = r->err.size() > 400 ? r->err.substr(r->err.size() - 400) : r->err;
      return Error::infra(fmt::format("workload {} {}; last output: {}", w.command.front(), r->describe_end(),
                                      tail.empty() ? "(none)" : tail));
    }
    return ok();
  });
}

}  // namespace harness
