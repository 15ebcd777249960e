#include "harness/levels/diagnostics.h"

#include <gtest/gtest.h>

namespace harness {
namespace {

Metric metric(Level level, std::string name, std::optional<double> value, std::string unit = "1") {
  Metric m;
  m.level = level;
  m.name = std::move(name);
  m.value = value;
  m.unit = std::move(unit);
  if (!value) m.unavailable = "not read";
  return m;
}

Verdict verdict(Level level, std::string check, VerdictStatus status) {
  Verdict v;
  v.level = level;
  v.check = std::move(check);
  v.status = status;
  return v;
}

// Levels 1-3 pass, level 4's efficiency check failed.
Analysis efficiency_failed(double alu_stalls) {
  Analysis a;
  a.metrics.push_back(metric(Level::counters, "counter.ALU_STALL_CYCLES", alu_stalls, "cycles"));
  a.metrics.push_back(metric(Level::counters, "counter.alu_stall_ratio", alu_stalls / 1e9));
  a.metrics.push_back(metric(Level::counters, "counter.MEM_STALL_CYCLES", 4e8, "cycles"));
  a.verdicts.push_back(verdict(Level::roofline, "roofline.expect.dram_bandwidth_min", VerdictStatus::pass));
  a.verdicts.push_back(verdict(Level::ddr, "ddr.expect.dq_active_ratio_min", VerdictStatus::pass));
  a.verdicts.push_back(verdict(Level::latency, "latency.expect.efficiency_min", VerdictStatus::fail));
  return a;
}

TEST(SeedDiagnosticRule, APlainRunShowsTheAluStallCounters) {
  Scenario s;
  Analysis a = efficiency_failed(3e8);
  add_counters_verdicts_and_hints(s, a);
  ASSERT_EQ(a.hints.size(), 1u);
  EXPECT_EQ(a.hints[0],
            "levels 1-3 pass but level 4 efficiency did not improve: look at ALU-stall counters (CPU-side overhead, "
            "cache pollution) (latency.expect.efficiency_min failed): counter.ALU_STALL_CYCLES = 3e+08 cycles; "
            "counter.alu_stall_ratio = 0.3. Compare against a baseline run to see whether they rose.");
}

TEST(SeedDiagnosticRule, NoHintWhenALowerLevelFailedOrEfficiencyPassed) {
  Scenario s;
  Analysis a = efficiency_failed(3e8);
  a.verdicts[1].status = VerdictStatus::fail;
  add_counters_verdicts_and_hints(s, a);
  EXPECT_TRUE(a.hints.empty());
  Analysis b = efficiency_failed(3e8);
  b.verdicts[2].status = VerdictStatus::pass;
  add_counters_verdicts_and_hints(s, b);
  EXPECT_TRUE(b.hints.empty());
}

TEST(SeedDiagnosticRule, AgainstABaselineSaysWhetherAluStallsRose) {
  Analysis baseline = efficiency_failed(2e8);
  baseline.metrics.push_back(metric(Level::latency, "efficiency", 10, "1/J"));
  Analysis current = efficiency_failed(3e8);
  current.metrics.push_back(metric(Level::latency, "efficiency", 9.5, "1/J"));
  std::vector<std::string> hints = diagnose_efficiency_against_baseline(baseline, current);
  ASSERT_EQ(hints.size(), 1u);
  EXPECT_EQ(hints[0],
            "levels 1-3 pass but level 4 efficiency did not improve: look at ALU-stall counters (CPU-side overhead, "
            "cache pollution) (efficiency 10 -> 9.5): ALU-stall counters rose: counter.ALU_STALL_CYCLES 2e+08 -> "
            "3e+08 (+50 %), counter.alu_stall_ratio 0.2 -> 0.3 (+50 %)");

  Analysis steady = efficiency_failed(2e8);
  steady.metrics.push_back(metric(Level::latency, "efficiency", 10, "1/J"));
  hints = diagnose_efficiency_against_baseline(baseline, steady);
  ASSERT_EQ(hints.size(), 1u);
  EXPECT_NE(hints[0].find("ALU-stall counters did not rise (counter.ALU_STALL_CYCLES 2e+08 -> 2e+08, "
                          "counter.alu_stall_ratio 0.2 -> 0.2); the cause is elsewhere"),
            std::string::npos)
      << hints[0];

  Analysis improved = efficiency_failed(3e8);
  improved.metrics.push_back(metric(Level::latency, "efficiency", 21, "1/J"));
  EXPECT_TRUE(diagnose_efficiency_against_baseline(baseline, improved).empty());
}

}  // namespace
}  // namespace harness
