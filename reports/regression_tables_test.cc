#include "reports/regression_tables.h"

#include <gtest/gtest.h>

namespace harness {
namespace {

HistoryPoint point(std::int64_t run, std::string rig, std::optional<double> v, std::string unit = "B/s") {
  HistoryPoint p;
  p.run_id = run;
  p.started_at = "2026-11-" + std::to_string(20 + run) + "T02:00:00Z";
  p.origin = "live";
  p.scenario_name = "npu";
  p.rig = std::move(rig);
  p.value = v;
  p.unit = std::move(unit);
  return p;
}

TEST(RegressionTables, BandwidthRowsGoSequentialRandomThenBurstsBySize) {
  using K = RegressionTableKind;
  EXPECT_LT(regression_row_rank(K::bandwidth, "bandwidth.seq_read.1t"), regression_row_rank(K::bandwidth, "bandwidth.random_4k"));
  EXPECT_LT(regression_row_rank(K::bandwidth, "bandwidth.random_4k"), regression_row_rank(K::bandwidth, "bandwidth.burst_64B"));
  EXPECT_LT(regression_row_rank(K::bandwidth, "bandwidth.burst_128B"), regression_row_rank(K::bandwidth, "bandwidth.burst_1024B"));
  EXPECT_LT(regression_row_rank(K::bandwidth, "bandwidth.burst_2048B"), regression_row_rank(K::bandwidth, "bandwidth.l2"));
  EXPECT_FALSE(regression_row_rank(K::bandwidth, "ceiling.memory.dram"));
  EXPECT_TRUE(regression_row_rank(K::compute, "ceiling.compute.int8"));
  EXPECT_TRUE(regression_row_rank(K::compute, "compute.fma_fp32.2t"));
  EXPECT_TRUE(regression_row_rank(K::latency, "encoder_layer1.time"));
  EXPECT_FALSE(regression_row_rank(K::latency, "load.none.time"));
  EXPECT_FALSE(regression_row_rank(K::latency, "latency_p95"));
}

TEST(RegressionTables, OneTablePerRigWithTheNewestNightsAsColumns) {
  const RegressionTableSpec& spec = *find_regression_table("bandwidth");
  std::vector<MetricHistory> rows = {
      {"bandwidth.burst_2048B", {point(1, "a", 9e9), point(2, "b", 5e9), point(3, "a", 9.9e9), point(4, "a", 7.92e9)}},
      {"bandwidth.burst_64B", {point(1, "a", 4e9), point(3, "a", std::nullopt), point(4, "a", 5e9)}},
  };
  std::vector<RegressionTable> t = build_regression_tables(spec, rows, 2);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].rig, "a");
  ASSERT_EQ(t[0].columns.size(), 2u);  // runs 3 and 4: the newest two of rig a
  EXPECT_EQ(t[0].columns[0].run_id, 3);
  ASSERT_EQ(t[0].rows.size(), 2u);
  EXPECT_EQ(t[0].rows[0].metric, "bandwidth.burst_64B");  // 64 B before 2 KiB
  EXPECT_FALSE(t[0].rows[0].values[0].has_value());
  EXPECT_EQ(render_regression_tables_text({t[0]}),
            "bandwidth regression: scenario npu on rig a (2 runs)\n"
            "metric                      run 3       run 4  last change\n"
            "                       2026-11-23  2026-11-24\n"
            "bandwidth.burst_64B             -      5 GB/s\n"
            "bandwidth.burst_2048B    9.9 GB/s   7.92 GB/s  -20.0 %\n");
  EXPECT_EQ(t[1].rig, "b");
  ASSERT_EQ(t[1].rows.size(), 1u);  // rig b never ran the 64 B burst
}

}  // namespace
}  // namespace harness
