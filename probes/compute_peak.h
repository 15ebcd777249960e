// Compute-peak microbenchmark: fp32 fused multiply-add throughput, the
// measured compute ceiling of a host (seed 001's "compute" regression table).
#pragma once

#include <cstdint>

#include "probes/clock.h"

namespace harness {

struct ComputeSample {
  double operations = 0;  // 2 per lane per FMA
  double seconds = 0;
  float result = 0;       // sum of every accumulator: tests compare it with std::fma
  double ops_per_second() const { return seconds > 0 ? operations / seconds : 0; }
};

// Runs `iterations` rounds of kFmaChains independent FMA chains per thread on
// `threads` threads at once. The chains are independent so the FMA units, not
// the FMA latency, limit the rate; every chain's result is summed and kept, so
// no work can be dropped.
ComputeSample fma_fp32_peak(Clock& clock, std::uint64_t iterations, int threads = 1);

// Chains per thread and the lane count of the vector path in use.
constexpr int kFmaChains = 12;
int fma_lanes();
const char* fma_instruction_set();  // "avx512f", "avx2+fma", "neon" (aarch64) or "scalar"

// What one thread's result must be, computed with std::fma one lane at a
// time: the vector paths do exactly the same rounding.
float fma_reference_result(std::uint64_t iterations);

}  // namespace harness
