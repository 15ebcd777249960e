#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "harness/base/stats.h"
#include "harness/rig/local_device.h"
#include "harness/rig/step_progress.h"
#include "probes/compute_peak.h"
#include "probes/kernels.h"
#include "probes/membw.h"
#include "probes/vendor_figures.h"

namespace harness {
namespace {

int host_threads(const RooflineConfig& c) {
  return std::max(1, c.threads > 0 ? c.threads : static_cast<int>(std::thread::hardware_concurrency()));
}

// One repeated measurement of the level: a host ceiling or a built-in
// kernel's time. The repetitions of all of them are taken in rounds, one of
// each per round, so that a disturbance of the host for a while (another
// tenant's burst on a shared machine) falls on one or two repetitions of
// each measurement instead of all of one's, and their median keeps it out:
// on the shared VM five back-to-back repetitions of bandwidth.burst_64B once
// all read 5.4-6.1 GB/s against 9.1-9.5 in every other run.
struct Repeated {
  std::string name;              // the step's text
  std::function<void()> warm;    // before its first repetition (may be empty)
  std::function<double()> take;  // one repetition's value
  std::vector<double>* values;   // where the values go
  // Warm before every repetition, for what back to back the repetition before
  // it left: a working set that fits the caches (the L2 read, a kernel's
  // data), the clock's frequency (FMA). The reads of the large buffer leave
  // nothing a round undoes; they warm once.
  bool warm_each = false;
  int rounds = 0;  // how many rounds take it: the repetitions, or a pairing's rounds
};

// A kernel with a same-run reference: both timed once a round, in the order
// the run's seed draws for the round, so that whatever the device does
// during a round both sides see.
struct Paired {
  Repeated candidate, reference;
};

// This host's "bandwidth" and "compute" tables (seed 001): sequential reads
// on 1..N threads, the L2, random 4 KiB blocks, the burst sweep, FMA peak
// 1..N threads; each a CeilingSamples in `out` (in this order), its
// repetitions appended to `plan`. The buffers live in `buffers`.
Status plan_host(const RooflineConfig& c, Clock& clock, std::vector<std::unique_ptr<BandwidthBuffer>>& buffers,
                 RooflineRecording& out, std::vector<Repeated>& plan) {
  const int threads = host_threads(c);
  Result<BandwidthBuffer> allocated = BandwidthBuffer::allocate(static_cast<std::size_t>(c.buffer_bytes));
  if (!allocated) return allocated.error();
  BandwidthBuffer* buffer = buffers.emplace_back(std::make_unique<BandwidthBuffer>(std::move(*allocated))).get();
  // Which pages the buffer got changes the figures (TLB misses): say it in
  // every source.
  Result<std::size_t> huge = buffer->huge_page_bytes();
  const std::string pages = huge ? fmt::format("{} of {} MiB on huge pages", *huge >> 20, buffer->size() >> 20)
                                 : "huge pages unknown";
  const std::string isa = bandwidth_instruction_set();
  // Each ceiling with how to measure it; the plan points at the ceilings'
  // values once all are in place.
  std::vector<std::pair<std::size_t, Repeated>> measured;  // index into out.ceilings
  auto add = [&](CeilingSamples ceiling, std::function<void()> warm, std::function<double()> take, bool warm_each) {
    measured.emplace_back(out.ceilings.size(), Repeated{ceiling.name, std::move(warm), std::move(take), nullptr,
                                                        warm_each, c.repetitions});
    out.ceilings.push_back(std::move(ceiling));
  };

  for (int t = 1; t <= threads; ++t) {
    add({fmt::format("bandwidth.seq_read.{}t", t), "B/s",
         fmt::format("membw:seq_read {} {} thread{}, {}", isa, t, t == 1 ? "" : "s", pages), {}, ""},
        [&clock, buffer, t] { (void)sequential_read(*buffer, clock, t); },  // TLB, page tables, prefetchers
        [&clock, buffer, t] { return sequential_read(*buffer, clock, t).bytes_per_second(); }, false);
  }

  // The on-chip ceiling: sequential reads of half the L2, many passes (a
  // rig's "l2" memory ceiling measured on a host).
  if (Result<std::size_t> l2 = cache_bytes(2); !l2) {
    out.ceilings.push_back({"bandwidth.l2", "B/s", "", {}, l2.error().message});
  } else {
    Result<BandwidthBuffer> small = BandwidthBuffer::allocate(*l2 / 2);
    if (!small) return small.error();
    BandwidthBuffer* half = buffers.emplace_back(std::make_unique<BandwidthBuffer>(std::move(*small))).get();
    const int passes = static_cast<int>(std::max<std::size_t>(1, (64u << 20) / half->size()));
    add({"bandwidth.l2", "B/s",
         fmt::format("membw:seq_read {} 1 thread, {} KiB buffer x {} passes", isa, half->size() >> 10, passes), {},
         ""},
        [&clock, half] { (void)sequential_read(*half, clock, 1, 1); },
        [&clock, half, passes] { return sequential_read(*half, clock, 1, passes).bytes_per_second(); }, true);
  }

  // Random reads: the 4 KiB block of seed 000 (52 vs 8.3 GB/s), then the
  // burst sweep of seed 001 (64 B .. 2 KiB).
  std::vector<std::pair<std::string, std::int64_t>> blocks = {{"bandwidth.random_4k", 4096}};
  for (std::int64_t b : c.bursts) blocks.emplace_back(fmt::format("bandwidth.burst_{}B", b), b);
  for (const auto& [name, bytes] : blocks) {
    const auto block = static_cast<std::size_t>(bytes);
    const std::size_t count = static_cast<std::size_t>(std::max<std::int64_t>(1, c.random_bytes / bytes));
    // A new seed per repetition: each reads a different random set.
    add({name, "B/s", fmt::format("membw:random_read {} blocks of {} B, {}", isa, bytes, pages), {}, ""}, nullptr,
        [&clock, buffer, block, count, seed = std::uint64_t{0}]() mutable {
          return random_block_read(*buffer, clock, block, count, ++seed).bytes_per_second();
        },
        false);
  }

  const std::int64_t iterations = c.fma_iterations;
  for (int t = 1; t <= threads; ++t) {
    add({fmt::format("compute.fma_fp32.{}t", t), "op/s",
         fmt::format("fma_peak {} x{} chains, {} thread{}", fma_instruction_set(), kFmaChains, t, t == 1 ? "" : "s"),
         {}, ""},
        [&clock, t, iterations] { (void)fma_fp32_peak(clock, iterations / 8, t); },  // the clock settles
        [&clock, t, iterations] { return fma_fp32_peak(clock, iterations, t).ops_per_second(); }, true);
  }
  for (auto& [index, m] : measured) {
    m.values = &out.ceilings[index].values;
    plan.push_back(std::move(m));
  }
  return ok();
}

// A kernel paired with its reference times a block of runs a round, each
// side, and keeps their median: as many runs as fill this much time, counted
// once from the pair's first warm run, the same for both sides (at least
// one, at most kMaxBlockRuns). A time slice of another process then lands on
// one or two runs of a block instead of on the round's figure: on the shared
// VM single runs of a 256^3 gemm gave A/A rounds whose ratios spread so that
// only a change of 100 % could have been seen.
constexpr double kBlockSeconds = 0.02;
constexpr int kMaxBlockRuns = 64;

double seconds_of_run(Clock& clock, KernelInstance& kernel) {
  const std::uint64_t t0 = clock.now_ns();
  kernel.run();
  return static_cast<double>(clock.now_ns() - t0) * 1e-9;
}

// A kernel instance timed once a round, warmed (first-touch page faults, and
// a round of other work, are not its time) before each; with `block_runs`,
// a block of runs (above) whose count the first warm run sets.
Repeated timed(std::string name, Clock& clock, KernelInstance* kernel, std::vector<double>* values, int rounds,
               int* block_runs = nullptr) {
  auto warm = [&clock, kernel, block_runs] {
    if (!block_runs || *block_runs > 0) return kernel->run();
    const double once = seconds_of_run(clock, *kernel);
    *block_runs = once > 0 ? static_cast<int>(std::clamp(std::ceil(kBlockSeconds / once), 1.0,
                                                         static_cast<double>(kMaxBlockRuns)))
                           : kMaxBlockRuns;
  };
  auto take = [&clock, kernel, block_runs] {
    const int runs = block_runs ? std::max(1, *block_runs) : 1;
    std::vector<double> seconds;
    for (int i = 0; i < runs; ++i) seconds.push_back(seconds_of_run(clock, *kernel));
    return median(std::move(seconds));
  };
  return Repeated{std::move(name), warm, take, values, true, rounds};
}

// The built-in kernels to time, each a KernelTiming in `out`; those with a
// reference in this request go to `paired` with theirs. The instances live
// in `kernels`.
Status plan_kernels(const RooflineConfig& c, Clock& clock, std::vector<std::unique_ptr<KernelInstance>>& kernels,
                    RooflineRecording& out, std::vector<Repeated>& plan, std::vector<Paired>& paired) {
  auto instance = [&](const BuiltinKernel& spec, const std::string& what) -> Result<KernelInstance*> {
    Result<std::unique_ptr<KernelInstance>> kernel = make_kernel(spec);
    if (!kernel) return kernel.error().within(what);
    return kernels.emplace_back(std::move(*kernel)).get();
  };
  std::vector<const RooflineKernel*> timed_kernels;
  for (const RooflineKernel& k : c.kernels)
    if (k.builtin && !k.time) timed_kernels.push_back(&k);
  // The timings first, all of them: the plan points into out.kernels.
  const std::size_t first = out.kernels.size();
  for (const RooflineKernel* k : timed_kernels) out.kernels.push_back(KernelTiming{k->name, {}, "", {}, 0});
  for (std::size_t i = 0; i < timed_kernels.size(); ++i) {
    const RooflineKernel& k = *timed_kernels[i];
    KernelTiming& timing = out.kernels[first + i];
    Result<KernelInstance*> kernel = instance(*k.builtin, "kernel " + k.name);
    if (!kernel) return kernel.error();
    const int rounds = timed_rounds(c, k);
    if (!is_paired(c, k)) {
      plan.push_back(timed("kernel " + k.name, clock, *kernel, &timing.seconds, rounds));
      continue;
    }
    Result<KernelInstance*> reference = instance(*k.reference, "the reference of kernel " + k.name);
    if (!reference) return reference.error();
    paired.push_back({timed("kernel " + k.name, clock, *kernel, &timing.seconds, rounds, &timing.runs_per_round),
                      timed("reference of kernel " + k.name, clock, *reference, &timing.reference_seconds, rounds,
                            &timing.runs_per_round)});
  }
  return ok();
}

}  // namespace

// The profile (a host file) is the host's to read (acquire_roofline.cc).
Result<RooflineRecording> LocalDevice::measure_roofline(const RooflineConfig& c, std::stop_token stop,
                                                        RunProgress* progress) {
  RooflineRecording out;
  std::vector<std::unique_ptr<BandwidthBuffer>> buffers;
  std::vector<std::unique_ptr<KernelInstance>> kernels;
  std::vector<Repeated> plan;
  std::vector<Paired> paired;
  if (c.host_benchmarks) HARNESS_TRY(plan_host(c, clock_, buffers, out, plan));
  HARNESS_TRY(plan_kernels(c, clock_, kernels, out, plan, paired));
  const std::uint64_t seed = c.paired_with ? c.paired_with->seed.value_or(0) : 0;
  if (!paired.empty()) out.pairing = pairing_text(*c.paired_with, seed);

  // Each vendor tool a step; then each round a step, one repetition of every
  // measurement (Repeated says why) and both sides of every paired kernel,
  // the step's text naming the one taken.
  int rounds = 0;
  for (const Repeated& m : plan) rounds = std::max(rounds, m.rounds);
  for (const Paired& p : paired) rounds = std::max(rounds, p.candidate.rounds);
  StepProgress steps(progress, clock_, Level::roofline, static_cast<int>(c.vendor.size()) + rounds,
                     "measurements this round");
  for (const VendorTool& tool : c.vendor) {
    if (stop.stop_requested()) return interrupted_error();
    steps.begin("vendor tool " + tool.name, 1);
    out.vendor.push_back(run_vendor_tool(tool.name, tool.argv, tool.timeout_s));
    steps.advance(1);
  }
  for (int round = 1; round <= rounds; ++round) {
    std::vector<Repeated*> order;  // this round's measurements in the order they run
    for (Repeated& m : plan)
      if (round <= m.rounds) order.push_back(&m);
    for (Paired& p : paired) {
      if (round > p.candidate.rounds) continue;
      const bool reference_runs_first = reference_first(*c.paired_with, seed, c.paired_with->first_round + round - 1);
      order.push_back(reference_runs_first ? &p.reference : &p.candidate);
      order.push_back(reference_runs_first ? &p.candidate : &p.reference);
    }
    steps.begin(order.front()->name, static_cast<std::int64_t>(order.size()));
    for (std::size_t i = 0; i < order.size(); ++i) {
      Repeated& m = *order[i];
      if (stop.stop_requested()) return interrupted_error();
      steps.retitle(m.name);
      if ((round == 1 || m.warm_each) && m.warm) m.warm();
      m.values->push_back(m.take());
      steps.advance(static_cast<std::int64_t>(i + 1));
    }
  }
  return out;
}

}  // namespace harness
