// The strobe estimate of DQ activity on captures the project's synthesizer
// did not make: scripts/gen-strobe-vectors.py (NumPy) wrote
// tests/data/strobe/*.vcd, an asynchronously sampled CK, a deselected chip
// select and a strobe with every impairment at once (+-1 sample of edge
// jitter, a skew of up to half a tCK, 40/60 or 60/40 duty, single-sample
// ringing; DDR4 tri-stated between bursts, LPDDR5's RDQS at WCK rate), and
// truth.json the data time it rendered. The estimate is held within 2 %
// (absolute ratio) of that truth, and the strobe rate to the one rendered.
#include <cmath>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/ddr/decoder.h"
#include "harness/ddr/metrics.h"

namespace harness::ddr {
namespace {

const std::string kDir = std::string(HARNESS_SOURCE_DIR) + "/tests/data/strobe/";

TEST(StrobeVectors, EstimateIsWithinTwoPercentOfTheIndependentTruth) {
  std::ifstream in(kDir + "truth.json");
  ASSERT_TRUE(in) << "tests/data/strobe/truth.json is missing";
  const nlohmann::json cases = nlohmann::json::parse(in);
  ASSERT_GE(cases.size(), 6u);
  for (const auto& c : cases) {
    const std::string file = c["file"].get<std::string>();
    SCOPED_TRACE(file);
    std::optional<Standard> standard = standard_from_name(c["standard"].get<std::string>());
    ASSERT_TRUE(standard);
    DecodeOptions options{*standard, {}, 1e-6};
    options.probes.probed = c["probed"].get<std::vector<std::string>>();
    BusStatistics stats({*standard, 16});
    Result<BusTiming> timing = decode_capture_file(kDir + file, {}, options, stats);
    ASSERT_TRUE(timing) << timing.error().message;
    BusSummary summary = stats.finish(*timing);
    ASSERT_TRUE(summary.dq_active_ratio_dqs.has_value());
    const double truth = c["dq_active_ratio"].get<double>();
    EXPECT_LE(std::abs(*summary.dq_active_ratio_dqs - truth), 0.02)
        << "strobes " << *summary.dq_active_ratio_dqs << ", truth " << truth;
    EXPECT_EQ(timing->strobes.pulses_per_tck, c["pulses_per_tck"].get<double>());
    EXPECT_TRUE(timing->strobes.rate_measured);
    // The uncertainty is about one toggle per burst, of the truth's order.
    EXPECT_GT(*summary.dq_active_ratio_dqs_uncertainty, 0);
    EXPECT_NEAR(timing->strobes.bursts, c["runs"].get<double>(), 0.1 * c["runs"].get<double>());
    EXPECT_TRUE(summary.command_counts.empty());  // the chip select never selects
  }
}

}  // namespace
}  // namespace harness::ddr
