#include "harness/compare/baseline_expectations.h"

#include <gtest/gtest.h>

namespace harness {
namespace {

Metric value(Level level, const std::string& name, double v, const std::string& unit = "1") {
  Metric m;
  m.level = level;
  m.name = name;
  m.value = v;
  m.unit = unit;
  return m;
}

// The levels' baseline-relative expectations reach compare: the seed's
// roofline ("moved right by >= 6x") and counter ("MEM_STALL drop >= 50 %",
// "L2 miss follows") criteria, both judged, both able to fail.
TEST(BaselineExpectations, EveryLevelsBaselineChecksAreJudged) {
  Result<Scenario> s = parse_scenario(R"([scenario]
name = "t"
[rig]
name = "r"
[workload]
builtin = "vector_add"
elements = 16
[roofline]
[[roofline.kernels]]
name = "enc"
flops = 1.8e10
bytes = "1.5 TB"
[roofline.kernels.expect]
intensity_gain_min = 6.0
[counters]
groups = ["npu-driver-stats"]
[counters.sources.npu_stats]
path = "/nonexistent/stats"
[counters.expect.baseline]
MEM_STALL_CYCLES_drop_min = "50 %"
L2_MISS_CYCLES_follows = "MEM_STALL_CYCLES"
)", std::string(HARNESS_SOURCE_DIR) + "/scenarios/t.toml");
  ASSERT_TRUE(s) << s.error().message;
  Analysis day1, day6;
  day1.metrics = {value(Level::roofline, "enc.intensity", 0.012, "op/B"),
                  value(Level::counters, "counter.MEM_STALL_CYCLES", 8.7e9, "cycles"),
                  value(Level::counters, "counter.L2_MISS_CYCLES", 4.7e9, "cycles")};
  day6.metrics = {value(Level::roofline, "enc.intensity", 0.09, "op/B"),
                  value(Level::counters, "counter.MEM_STALL_CYCLES", 3.1e9, "cycles"),
                  value(Level::counters, "counter.L2_MISS_CYCLES", 1.9e9, "cycles")};
  std::vector<Verdict> pass = evaluate_baseline_expectations(*s, day1, day6);
  ASSERT_EQ(pass.size(), 3u);
  for (const Verdict& v : pass) EXPECT_EQ(v.status, VerdictStatus::pass) << v.check << ": " << v.detail;

  Analysis worse = day6;
  worse.metrics[0].value = 0.05;  // moved right by only 4.2x
  worse.metrics[2].value = 5.0e9;  // L2 misses rose while MEM_STALL dropped
  std::vector<Verdict> fail = evaluate_baseline_expectations(*s, day1, worse);
  ASSERT_EQ(fail.size(), 3u);
  auto find = [&](const std::string& part) -> const Verdict& {
    for (const Verdict& v : fail)
      if (v.check.find(part) != std::string::npos) return v;
    ADD_FAILURE() << "no verdict on " << part;
    return fail[0];
  };
  EXPECT_EQ(find("intensity_gain_min").level, Level::roofline);
  EXPECT_EQ(find("intensity_gain_min").status, VerdictStatus::fail);
  EXPECT_EQ(find("MEM_STALL_CYCLES_drop_min").status, VerdictStatus::pass);
  const Verdict& follows = find("L2_MISS_CYCLES_follows");
  EXPECT_EQ(follows.status, VerdictStatus::fail);
  EXPECT_NE(follows.detail.find("MEM_STALL_CYCLES"), std::string::npos) << follows.detail;
}

}  // namespace
}  // namespace harness
