#include "harness/compare/noise_band.h"

#include <cmath>

#include <gtest/gtest.h>

namespace harness {
namespace {

TEST(NoiseBand, NeedsEnoughRuns) {
  std::vector<double> h = {1.0, 1.1, 0.9, 1.0};
  EXPECT_FALSE(noise_band(h, 1.0, 5));
  h.push_back(1.05);
  EXPECT_TRUE(noise_band(h, 1.0, 5));
}

TEST(NoiseBand, AValueFarOutsideTheSpreadIsUnlikely) {
  std::vector<double> h = {10.1, 9.8, 10.3, 10.0, 9.9, 10.2};
  EXPECT_GT(noise_band(h, 10.1, 5)->p, 0.5);
  EXPECT_LT(noise_band(h, 12.0, 5)->p, 0.001);
}

TEST(NoiseBand, AHistoryWithoutSpreadOnlyAcceptsItsValue) {
  std::vector<double> h(6, 4.0);
  EXPECT_EQ(noise_band(h, 4.0, 5)->p, 1.0);
  EXPECT_EQ(noise_band(h, 4.1, 5)->p, 0.0);
}

TEST(NoiseBand, ACountVariesAtLeastAsAPoissonCount) {
  // Five runs that each counted 2 context switches: a run with 1 is well
  // within a count's own noise, though the five show none.
  std::vector<double> twos(5, 2.0);
  std::optional<NoiseBand> one = noise_band(twos, 1.0, 3, noise_floor_of_unit("events"));
  ASSERT_TRUE(one);
  EXPECT_TRUE(one->counting_floor);
  EXPECT_DOUBLE_EQ(one->sd, std::sqrt(2.0));
  EXPECT_GT(one->p, 0.5);
  EXPECT_EQ(noise_band(twos, 1.0, 3)->p, 0.0);  // without the floor: no spread, any change is certain
  // No events in any run: one event is the count's resolution, not a jump.
  std::vector<double> zeros(5, 0.0);
  EXPECT_GT(noise_band(zeros, 1.0, 3, NoiseFloor::counting)->p, 0.3);
  // A count of a million moves by about a thousand between identical runs;
  // ten thousand more is far outside that.
  std::vector<double> million(5, 1e6);
  EXPECT_LT(noise_band(million, 1.01e6, 3, NoiseFloor::counting)->p, 0.01);
  EXPECT_GT(noise_band(million, 1.0005e6, 3, NoiseFloor::counting)->p, 0.5);
}

TEST(NoiseBand, TheFloorOnlyRaisesASpread) {
  std::vector<double> h = {100, 180, 60, 140, 20};  // sd 63, above sqrt(100)
  std::optional<NoiseBand> b = noise_band(h, 100, 3, NoiseFloor::counting);
  EXPECT_FALSE(b->counting_floor);
  EXPECT_DOUBLE_EQ(b->sd, noise_band(h, 100, 3)->sd);
}

TEST(NoiseBand, OnlyEventCountsHaveTheCountingFloor) {
  EXPECT_EQ(noise_floor_of_unit("events"), NoiseFloor::counting);
  for (const char* unit : {"s", "B/s", "cycles", "B", "", "1"}) EXPECT_EQ(noise_floor_of_unit(unit), NoiseFloor::none);
}

}  // namespace
}  // namespace harness
