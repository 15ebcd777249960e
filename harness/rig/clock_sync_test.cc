#include "harness/rig/clock_sync.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace harness {
namespace {

TEST(ClockSync, TheProbeWithTheShortestRoundTripGivesTheOffset) {
  // Device = host + 5 s. Probe 2 has the shortest round trip (100 ns) and a
  // symmetric path; the others are slow and lopsided.
  std::vector<ClockProbe> probes = {
      {1'000, 5'000'009'000, 11'000},    // rtt 10000, reply delayed on the way back
      {20'000, 5'000'020'050, 20'100},   // rtt 100
      {30'000, 5'000'030'100, 40'000},   // rtt 10000
  };
  ClockOffset o = estimate_offset(probes);
  EXPECT_EQ(o.probes, 3);
  EXPECT_EQ(o.rtt_ns, 100u);
  EXPECT_EQ(o.uncertainty_ns, 50u);
  EXPECT_EQ(o.offset_ns, 5'000'000'000);
  EXPECT_EQ(o.to_host(5'000'020'050), 20'050u);
}

TEST(ClockSync, AnyAsymmetryStaysWithinHalfTheRoundTrip) {
  // The device answered at the very start or the very end of the round trip.
  const std::int64_t truth = -3'000'000;
  for (std::uint64_t at : {0u, 400u, 1000u}) {
    ClockProbe p{1'000'000, static_cast<std::uint64_t>(1'000'000 + static_cast<std::int64_t>(at) + truth), 1'001'000};
    ClockOffset o = estimate_offset({p});
    EXPECT_LE(std::llabs(o.offset_ns - truth), static_cast<long long>(o.uncertainty_ns)) << at;
  }
}

TEST(ClockSync, NoUsableProbeIsNoEstimate) {
  EXPECT_FALSE(estimate_offset({}).valid());
  EXPECT_FALSE(estimate_offset({{10, 5, 9}}).valid());  // received before it was sent
}

TEST(ClockSync, AnOffsetThatJumpsIsUnstableAndSaysBy) {
  ClockOffset before{1'000'000, 20'000, 40'000, 8}, after{1'010'000, 20'000, 40'000, 8};
  EXPECT_EQ(check_offset_stable(before, after, 10'000'000'000, 100, 0), "");  // 10 us, within 40 us + 1 ms drift
  ClockOffset jumped{6'000'000, 20'000, 40'000, 8};
  EXPECT_THAT(check_offset_stable(before, jumped, 1'000'000'000, 100, 1'000'000),
              ::testing::HasSubstr("the clock offset moved by 5.000 ms over 1.0 s"));
}

}  // namespace
}  // namespace harness
