#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "harness/levels/layer_profile.h"
#include "harness/runner/acquire.h"
#include "probes/compute_peak.h"
#include "probes/kernels.h"
#include "probes/membw.h"
#include "probes/vendor_figures.h"

namespace harness {
namespace {

int host_threads(const RooflineConfig& c) {
  return std::max(1, c.threads > 0 ? c.threads : static_cast<int>(std::thread::hardware_concurrency()));
}

// The level's steps, each reported as it runs: every vendor tool, every
// host ceiling (the tables below), every built-in kernel to time.
int step_count(const RooflineConfig& c) {
  int n = static_cast<int>(c.vendor.size());
  if (c.host_benchmarks) n += 2 * host_threads(c) + 2 + static_cast<int>(c.bursts.size());
  for (const RooflineKernel& k : c.kernels) n += k.builtin && !k.time ? 1 : 0;
  return n;
}

// This host's "bandwidth" and "compute" tables (seed 001): sequential reads
// on 1..N threads, random 4 KiB blocks, the burst sweep, FMA peak 1..N threads.
Status measure_host(const AcquireContext& ctx, const RooflineConfig& c, StepProgress& steps, RooflineRecording& out) {
  const int reps = c.repetitions;
  const int threads = host_threads(c);

  Result<BandwidthBuffer> buffer = BandwidthBuffer::allocate(static_cast<std::size_t>(c.buffer_bytes));
  if (!buffer) return buffer.error();
  // Which pages the buffer got changes the figures (TLB misses): say it in
  // every source.
  Result<std::size_t> huge = buffer->huge_page_bytes();
  const std::string pages = huge ? fmt::format("{} of {} MiB on huge pages", *huge >> 20, buffer->size() >> 20)
                                 : "huge pages unknown";
  const std::string isa = bandwidth_instruction_set();

  for (int t = 1; t <= threads; ++t) {
    CeilingSamples s{fmt::format("bandwidth.seq_read.{}t", t), "B/s",
                     fmt::format("membw:seq_read {} {} thread{}, {}", isa, t, t == 1 ? "" : "s", pages), {}, ""};
    steps.begin(s.name, reps);
    (void)sequential_read(*buffer, ctx.clock, t);  // warm the TLB, page tables and prefetchers
    for (int i = 0; i < reps; ++i) {
      if (ctx.stop.stop_requested()) return interrupted_error();
      s.values.push_back(sequential_read(*buffer, ctx.clock, t).bytes_per_second());
      steps.advance(i + 1);
    }
    out.ceilings.push_back(std::move(s));
  }

  // The on-chip ceiling: sequential reads of half the L2, many passes (a
  // rig's "l2" memory ceiling measured on a host).
  {
    CeilingSamples s{"bandwidth.l2", "B/s", "", {}, ""};
    steps.begin(s.name, reps);
    Result<std::size_t> l2 = cache_bytes(2);
    if (!l2) {
      s.unavailable = l2.error().message;
    } else {
      Result<BandwidthBuffer> small = BandwidthBuffer::allocate(*l2 / 2);
      if (!small) return small.error();
      const int passes = static_cast<int>(std::max<std::size_t>(1, (64u << 20) / small->size()));
      s.source = fmt::format("membw:seq_read {} 1 thread, {} KiB buffer x {} passes", isa, small->size() >> 10, passes);
      (void)sequential_read(*small, ctx.clock, 1, passes);
      for (int i = 0; i < reps; ++i) {
        if (ctx.stop.stop_requested()) return interrupted_error();
        s.values.push_back(sequential_read(*small, ctx.clock, 1, passes).bytes_per_second());
        steps.advance(i + 1);
      }
    }
    out.ceilings.push_back(std::move(s));
  }

  // Random reads: the 4 KiB block of seed 000 (52 vs 8.3 GB/s), then the
  // burst sweep of seed 001 (64 B .. 2 KiB).
  struct Block { std::string name; std::int64_t bytes; };
  std::vector<Block> blocks = {{"bandwidth.random_4k", 4096}};
  for (std::int64_t b : c.bursts) blocks.push_back({fmt::format("bandwidth.burst_{}B", b), b});
  for (const Block& b : blocks) {
    CeilingSamples s{b.name, "B/s", fmt::format("membw:random_read {} blocks of {} B, {}", isa, b.bytes, pages), {}, ""};
    const std::size_t count = static_cast<std::size_t>(std::max<std::int64_t>(1, c.random_bytes / b.bytes));
    steps.begin(s.name, reps);
    for (int i = 0; i < reps; ++i) {
      if (ctx.stop.stop_requested()) return interrupted_error();
      // A new seed per repetition: each run reads a different random set.
      s.values.push_back(random_block_read(*buffer, ctx.clock, static_cast<std::size_t>(b.bytes), count,
                                           static_cast<std::uint64_t>(i + 1))
                             .bytes_per_second());
      steps.advance(i + 1);
    }
    out.ceilings.push_back(std::move(s));
  }

  for (int t = 1; t <= threads; ++t) {
    CeilingSamples s{fmt::format("compute.fma_fp32.{}t", t), "op/s",
                     fmt::format("fma_peak {} x{} chains, {} thread{}", fma_instruction_set(), kFmaChains, t,
                                 t == 1 ? "" : "s"),
                     {}, ""};
    steps.begin(s.name, reps);
    (void)fma_fp32_peak(ctx.clock, c.fma_iterations / 8, t);  // let the clock frequency settle
    for (int i = 0; i < reps; ++i) {
      if (ctx.stop.stop_requested()) return interrupted_error();
      s.values.push_back(fma_fp32_peak(ctx.clock, c.fma_iterations, t).ops_per_second());
      steps.advance(i + 1);
    }
    out.ceilings.push_back(std::move(s));
  }
  return ok();
}

// Reads the per-layer profile into the recording, checking it now so that a
// bad file stops the run with its file:line error.
Status read_profile(const LayerProfileConfig& p, RooflineRecording& out) {
  std::ifstream in(p.path, std::ios::binary);
  if (!in) return Error::input(fmt::format("{}: cannot open profile: {} (from {})", p.path, std::strerror(errno), p.where));
  std::ostringstream text;
  text << in.rdbuf();
  Result<LayerProfile> parsed = parse_layer_profile(text.str(), p.path, p.element_bytes);
  if (!parsed) return parsed.error();
  out.profile = ProfileText{p.path, text.str()};
  return ok();
}

}  // namespace

Status acquire_roofline(const AcquireContext& ctx, RooflineRecording& out) {
  const Scenario& s = ctx.scenario;
  if (!s.roofline) return ok();
  const RooflineConfig& c = *s.roofline;
  const int reps = c.repetitions;

  if (c.profile) HARNESS_TRY(read_profile(*c.profile, out));
  StepProgress steps(ctx.progress, ctx.clock, Level::roofline, step_count(c), "repetitions");
  for (const VendorTool& tool : c.vendor) {
    if (ctx.stop.stop_requested()) return interrupted_error();
    steps.begin("vendor tool " + tool.name, 1);
    out.vendor.push_back(run_vendor_tool(tool.name, tool.argv, tool.timeout_s));
    steps.advance(1);
  }
  if (c.host_benchmarks) HARNESS_TRY(measure_host(ctx, c, steps, out));

  for (const RooflineKernel& k : c.kernels) {
    if (!k.builtin || k.time) continue;
    KernelTiming timing{k.name, {}, ""};
    Result<std::unique_ptr<KernelInstance>> kernel = make_kernel(*k.builtin);
    if (!kernel) return kernel.error().within("kernel " + k.name);
    steps.begin("kernel " + k.name, reps);
    (*kernel)->run();  // warm-up: first-touch page faults are not the kernel's time
    for (int i = 0; i < reps; ++i) {
      if (ctx.stop.stop_requested()) return interrupted_error();
      std::uint64_t t0 = ctx.clock.now_ns();
      (*kernel)->run();
      std::uint64_t t1 = ctx.clock.now_ns();
      timing.seconds.push_back(static_cast<double>(t1 - t0) * 1e-9);
      steps.advance(i + 1);
    }
    out.kernels.push_back(timing);
  }
  return ok();
}

}  // namespace harness
