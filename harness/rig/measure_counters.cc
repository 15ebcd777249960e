#include <algorithm>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "harness/rig/counter_windows.h"
#include "harness/rig/local_device.h"
#include "harness/rig/step_progress.h"
#include "harness/scenario/reference_config.h"
#include "probes/counters/session.h"
#include "probes/kernels.h"
#include "probes/process.h"
#include "probes/workload/cpu_pinning.h"

namespace harness {
namespace {

// One side's workload, ready to run an iteration: a built-in kernel made
// (and warmed up) once, or a command started per iteration.
class CountedWorkload {
 public:
  // `what`: "workload" or "reference", as errors name it.
  static Result<CountedWorkload> make(const Workload& w, const char* what) {
    CountedWorkload out;
    out.workload_ = &w;
    out.what_ = what;
    if (w.kind == Workload::Kind::builtin) {
      Result<std::unique_ptr<KernelInstance>> made = make_kernel(w.builtin);
      if (!made) return made.error().within(what);
      out.kernel_ = std::move(*made);
      out.kernel_->run();  // warm-up: first-touch page faults are set-up, not the workload
    }
    return out;
  }

  Status iteration() const {
    if (kernel_) {
      kernel_->run();
      return ok();
    }
    const Workload& w = *workload_;
    Result<CommandResult> r = run_command(w.command, {.timeout_s = w.timeout_s, .max_output = 64 * 1024});
    if (!r) return r.error().within(what_);
    if (!r->succeeded()) {
      std::string tail = r->err.size() > 400 ? r->err.substr(r->err.size() - 400) : r->err;
      return Error::infra(fmt::format("{} {} {}; last output: {}", what_, w.command.front(), r->describe_end(),
                                      tail.empty() ? "(none)" : tail));
    }
    return ok();
  }

 private:
  const Workload* workload_ = nullptr;
  const char* what_ = "workload";
  std::unique_ptr<KernelInstance> kernel_;
};

}  // namespace

// Counters are read before and after the counted iterations, and between
// their windows (WindowPlan). A counter that cannot be read, or that vanished
// or went backwards during the run, is recorded with its reason and reported
// as unavailable by the analysis; the run goes on with the other counters.
// Only a broken workload or a wrong source setting aborts the run.
Result<CountersRecording> LocalDevice::measure_counters(const Workload& w, const CountersConfig& cfg,
                                                        std::stop_token stop, RunProgress* progress) {
  Result<CpuPin> pinned = CpuPin::to(w.cpus, w.first_cpu);
  if (!pinned) return pinned.error();
  CountersRecording out;
  const std::optional<ReferenceConfig>& ref = cfg.paired_with;
  const std::uint64_t seed = ref ? ref->seed.value_or(0) : 0;

  Result<CountedWorkload> candidate = CountedWorkload::make(w, "workload");
  if (!candidate) return candidate.error();
  std::optional<CountedWorkload> reference;
  if (ref) {
    Result<CountedWorkload> made = CountedWorkload::make(ref->workload, "reference");
    if (!made) return made.error();
    reference = std::move(*made);
  }

  CounterSourceOptions options;
  options.follow_children = w.kind == Workload::Kind::command ||
                            (ref && ref->workload.kind == Workload::Kind::command);
  Result<CounterSession> session = CounterSession::open(cfg.session_sources(), options);
  if (!session) return session.error();
  const WindowPlan plan = plan_windows(cfg);
  const std::int64_t total = plan.total();
  // One step: the counted iterations (the session opens in no time).
  StepProgress steps(progress, clock_, Level::counters, 1, "iterations");
  steps.begin("workload", total);
  session->read_before();
  std::int64_t done = 0;
  for (std::size_t k = 0; k < plan.length.size(); ++k) {
    const CountedWorkload& side = plan.reference[k] ? *reference : *candidate;
    for (std::int64_t i = 0; i < plan.length[k]; ++i) {
      if (stop.stop_requested()) return interrupted_error();
      HARNESS_TRY(side.iteration());
      steps.advance(++done);
    }
    if (k + 1 < plan.length.size()) session->read_between(done);
  }
  session->read_after();
  out.iterations = total;
  out.windows = static_cast<std::int64_t>(plan.length.size());
  if (ref) {
    for (bool r : plan.reference) out.window_sides.push_back(r ? "reference" : "candidate");
    out.pairing = pairing_text(*ref, seed);
  }
  for (const CounterGroup& g : cfg.groups) out.groups.push_back({g.name, g.path, g.sha256});
  out.readings = session->readings();
  if (out.readings.empty()) out.unavailable = "the counter groups define no counters";
  return out;
}

}  // namespace harness
