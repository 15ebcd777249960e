#include "harness/compare/noise_band.h"

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

}  // namespace
}  // namespace harness
