#include "probes/compute_peak.h"

#include <gtest/gtest.h>

namespace harness {
namespace {

// Every FMA really runs: the vector path's sum equals a scalar std::fma loop
// of the same chains, bit for bit.
TEST(ComputePeak, ResultMatchesScalarFmaReference) {
  MonotonicClock clock;
  for (std::uint64_t iterations : {1ull, 1000ull, 12345ull}) {
    ComputeSample s = fma_fp32_peak(clock, iterations, 1);
    EXPECT_EQ(s.result, fma_reference_result(iterations)) << iterations << " iterations";
  }
  ComputeSample two = fma_fp32_peak(clock, 1000, 2);
  EXPECT_EQ(two.result, fma_reference_result(1000));
}

TEST(ComputePeak, CountsTwoOperationsPerLanePerFma) {
  FakeClock clock(1'000'000);  // 1 ms between readings
  ComputeSample s = fma_fp32_peak(clock, 1000, 1);
  EXPECT_DOUBLE_EQ(s.operations, 2.0 * kFmaChains * fma_lanes() * 1000);
  EXPECT_DOUBLE_EQ(s.ops_per_second(), s.operations / 1e-3);
  ComputeSample two = fma_fp32_peak(clock, 1000, 2);
  EXPECT_DOUBLE_EQ(two.operations, 2 * s.operations);
}

}  // namespace
}  // namespace harness
