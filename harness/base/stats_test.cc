#include "harness/base/stats.h"

#include <algorithm>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace harness {
namespace {

// Reference values computed with numpy/scipy by
// tests/tools/make_latency_stats_reference.py.
nlohmann::json reference() {
  std::ifstream in(HARNESS_SOURCE_DIR "/tests/data/latency_stats_reference.json");
  return nlohmann::json::parse(in);
}

TEST(Stats, PercentilesMeanAndStddevMatchNumpy) {
  nlohmann::json ref = reference();
  std::vector<double> sample = ref["sample"].get<std::vector<double>>();
  std::vector<double> sorted = sample;
  std::sort(sorted.begin(), sorted.end());
  for (auto& [p, expected] : ref["percentiles"].items()) {
    EXPECT_NEAR(percentile_sorted(sorted, std::stod(p)), expected.get<double>(), 1e-15) << "p" << p;
  }
  EXPECT_NEAR(mean(sample), ref["mean"].get<double>(), 1e-15);
  EXPECT_NEAR(stddev(sample), ref["stddev"].get<double>(), 1e-15);
}

TEST(Stats, QuantileIntervalsMatchScipyBinomial) {
  nlohmann::json ref = reference();
  for (const nlohmann::json& c : ref["intervals"]) {
    std::size_t n = c["n"];
    double q = c["q"], conf = c["confidence"];
    std::optional<QuantileInterval> got = quantile_interval_ranks(n, q, conf);
    SCOPED_TRACE(testing::Message() << "n=" << n << " q=" << q << " confidence=" << conf);
    if (c["interval"].is_null()) {
      EXPECT_FALSE(got);
      continue;
    }
    ASSERT_TRUE(got);
    EXPECT_EQ(got->lower_rank, c["interval"]["lower_rank"].get<std::size_t>());
    EXPECT_EQ(got->upper_rank, c["interval"]["upper_rank"].get<std::size_t>());
    EXPECT_NEAR(got->coverage, c["interval"]["coverage"].get<double>(), 1e-9);
    EXPECT_GE(got->coverage, conf);
  }
}

TEST(Stats, TheTextbookMedianIntervalOfAHundredSamples) {
  // Ranks 40 and 61 cover the median of 100 samples with 96.5 %.
  std::vector<double> sorted(100);
  for (std::size_t i = 0; i < sorted.size(); ++i) sorted[i] = 0.001 * static_cast<double>(i + 1);
  std::optional<QuantileInterval> ci = quantile_interval_sorted(sorted, 0.5, 0.95);
  ASSERT_TRUE(ci);
  EXPECT_DOUBLE_EQ(ci->low, 0.040);
  EXPECT_DOUBLE_EQ(ci->high, 0.061);
}

TEST(Stats, MinimumSampleCountsMatchScipy) {
  nlohmann::json ref = reference();
  for (const nlohmann::json& c : ref["min_samples"]) {
    EXPECT_EQ(min_samples_for_quantile(c["q"], c["confidence"]), c["n"].get<std::size_t>()) << "q=" << c["q"];
  }
}

TEST(Stats, NoIntervalForDegenerateInput) {
  EXPECT_FALSE(quantile_interval_ranks(0, 0.5, 0.95));
  EXPECT_FALSE(quantile_interval_ranks(100, 1.0, 0.95));
  EXPECT_FALSE(quantile_interval_ranks(100, 0.5, 1.0));
}

}  // namespace
}  // namespace harness
