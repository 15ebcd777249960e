#include <fmt/format.h>

#include "harness/runner/acquire.h"
#include "probes/kernels.h"
#include "probes/membw.h"

namespace harness {

Status acquire_roofline(const AcquireContext& ctx, RooflineRecording& out) {
  const Scenario& s = ctx.scenario;
  if (!s.roofline) return ok();
  const int reps = s.roofline->repetitions;

  for (const Ceiling& c : s.rig.memory) {
    if (!c.measure) continue;
    CeilingSamples samples{"memory." + c.name, "B/s", "membw:seq_read", {}, ""};
    if (c.name != "dram") {
      samples.unavailable = fmt::format("no host microbenchmark measures memory ceiling '{}'", c.name);
      out.ceilings.push_back(samples);
      continue;
    }
    Result<BandwidthBuffer> buffer = BandwidthBuffer::allocate(static_cast<std::size_t>(s.roofline->buffer_bytes));
    if (!buffer) return buffer.error();
    (void)sequential_read_bandwidth(*buffer, ctx.clock);  // warm the TLB and prefetchers
    for (int i = 0; i < reps; ++i) {
      if (ctx.stop.stop_requested()) return interrupted_error();
      samples.values.push_back(sequential_read_bandwidth(*buffer, ctx.clock));
    }
    out.ceilings.push_back(samples);
  }
  for (const Ceiling& c : s.rig.compute) {
    if (!c.measure) continue;
    out.ceilings.push_back({"compute." + c.name, "op/s", "", {},
                            fmt::format("no host microbenchmark measures compute ceiling '{}' in this build",
                                        c.name)});
  }

  for (const RooflineKernel& k : s.roofline->kernels) {
    if (!k.builtin) continue;
    KernelTiming timing{k.name, {}, ""};
    Result<std::unique_ptr<KernelInstance>> kernel = make_kernel(*k.builtin);
    if (!kernel) return kernel.error().within("kernel " + k.name);
    (*kernel)->run();  // warm-up: first-touch page faults are not the kernel's time
    for (int i = 0; i < reps; ++i) {
      if (ctx.stop.stop_requested()) return interrupted_error();
      std::uint64_t t0 = ctx.clock.now_ns();
      (*kernel)->run();
      std::uint64_t t1 = ctx.clock.now_ns();
      timing.seconds.push_back(static_cast<double>(t1 - t0) * 1e-9);
    }
    out.kernels.push_back(timing);
  }
  return ok();
}

}  // namespace harness
