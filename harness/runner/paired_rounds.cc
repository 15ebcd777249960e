#include "harness/runner/paired_rounds.h"

#include <algorithm>
#include <optional>

#include "harness/compare/compare.h"

namespace harness {
namespace {

// Whether a gating metric of this condition is still "cannot tell" on the
// rounds so far (the paired judgement of everything measured until now).
bool gating_undecided(const AcquireContext& ctx, const std::vector<std::uint64_t>& start_ns,
                      const std::vector<std::uint64_t>& end_ns, const LatencyCondition& so_far,
                      const CompareConfig& config) {
  const Scenario& s = ctx.scenario;
  LatencyRecording rec;
  rec.source = "so far";
  rec.reference_source = "so far";
  LatencyCondition c = so_far;
  c.start_s.clear();
  c.latency_s.clear();
  const std::uint64_t origin = start_ns.empty() ? 0 : start_ns.front();
  for (std::size_t i = 0; i < start_ns.size() && i < end_ns.size(); ++i) {
    c.start_s.push_back(static_cast<double>(start_ns[i] - std::min(start_ns[i], origin)) * 1e-9);
    c.latency_s.push_back(static_cast<double>(end_ns[i] - std::min(end_ns[i], start_ns[i])) * 1e-9);
  }
  rec.conditions.push_back(std::move(c));
  Analysis analysis;
  analyse_latency(s, &rec, Provenance::measured, analysis);
  std::string prefix;
  for (std::size_t i = 0; i < s.latency->loads.size(); ++i)
    if (s.latency->loads[i].name == so_far.name) prefix = latency_condition_prefix(*s.latency, i);
  const Comparison paired = judge_against_reference(analysis, config);
  for (const MetricComparison& m : paired.metrics) {
    const bool gating = std::any_of(config.gating.begin(), config.gating.end(),
                                    [&](const std::string& g) { return m.name == prefix + g; });
    if (gating && m.verdict == Change::cannot_tell) return true;
  }
  return false;
}

// A block's counters (its own session's readings) appended to the run's;
// a block without readings leaves the level unavailable with its reason.
void add_counter_block(CountersRecording& run, int round, bool reference, CountersRecording&& block) {
  if (!run.unavailable.empty()) return;
  if (!block.unavailable.empty() || block.readings.empty()) {
    run.unavailable = block.unavailable.empty() ? "a block of the paired rounds read no counters" : block.unavailable;
    run.blocks.clear();
    return;
  }
  if (run.groups.empty()) run.groups = std::move(block.groups);
  run.iterations += block.iterations;
  run.blocks.push_back({round, reference ? "reference" : "candidate", block.iterations, std::move(block.readings)});
}

}  // namespace

std::int64_t paired_block_iterations(const Scenario& s) {
  if (!s.latency || !s.reference) return 1;
  return std::max<std::int64_t>(1, (s.latency->iterations + s.reference->rounds - 1) / s.reference->rounds);
}

Result<WorkloadWindow> run_paired_rounds(const AcquireContext& ctx, Device& device, const IterationPlan& plan,
                                         const IterationSink& sink, const std::vector<std::uint64_t>& start_ns,
                                         const std::vector<std::uint64_t>& end_ns, LatencyCondition& out) {
  const Scenario& s = ctx.scenario;
  const ReferenceConfig& ref = *s.reference;
  const CompareConfig config = s.compare.value_or(CompareConfig{});
  const std::int64_t per_block = paired_block_iterations(s);
  const int most_rounds = std::max(ref.rounds, static_cast<int>(config.max_rounds));
  std::optional<WorkloadWindow> first;
  // With the plan's counters: each block's own session, read at its
  // measured edges (docs/parts/counters.md, "Which window the counters cover").
  std::optional<CountersRecording> counted;
  if (plan.counters) counted.emplace().pairing = pairing_text(ref, ctx.pairing_seed);
  bool warmed[2] = {false, false};
  int round = 0;
  auto block = [&](bool reference) -> Status {
    const Workload& w = reference ? ref.workload : s.workload;
    IterationPlan p = plan;
    p.warmup = warmed[reference] ? ref.block_warmup : plan.warmup;
    p.iterations = per_block;
    p.min_duration_s = 0;
    p.iteration_timeout_s = w.timeout_s;
    if (p.counters) {
      p.counters->iterations = per_block;
      p.counters->windows = 1;
      p.counters->paired_with.reset();
    }
    const std::size_t before = start_ns.size();
    Result<WorkloadWindow> ran = device.run_workload(w, p, sink, ctx.stop);
    out.blocks.push_back({round, reference, before, start_ns.size() - before});
    if (!ran) return ran.error();
    warmed[reference] = true;
    if (counted && ran->counters) add_counter_block(*counted, round, reference, std::move(*ran->counters));
    if (!first) first = std::move(*ran);
    return ok();
  };
  int look_end = ref.rounds;
  std::uint64_t extra_from_ns = 0;  // when the first look's rounds were done
  while (true) {
    for (; round < look_end; ++round) {
      const bool reference = reference_first(ref, ctx.pairing_seed, round);
      HARNESS_TRY(block(reference));
      HARNESS_TRY(block(!reference));
    }
    if (look_end == ref.rounds) extra_from_ns = ctx.clock.now_ns();
    const double extra_s = static_cast<double>(ctx.clock.now_ns() - extra_from_ns) * 1e-9;
    if (look_end + ref.rounds > most_rounds) break;
    if (config.time_budget_s > 0 && extra_s >= config.time_budget_s) break;
    if (!gating_undecided(ctx, start_ns, end_ns, out, config)) break;
    look_end += ref.rounds;
  }
  first->counters = std::move(counted);
  return *first;
}

}  // namespace harness
