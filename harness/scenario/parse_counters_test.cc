// [counters.expect]'s keys come from the metric catalogue (its counter.<name>
// entry, instantiated for every counter and metric of the groups): the
// bounds and the baseline forms parse, and an unknown key names its file,
// line and the closest valid key.
#include <gtest/gtest.h>

#include "harness/model/metric_catalogue.h"
#include "harness/scenario/scenario.h"

namespace harness {
namespace {

Result<Scenario> parse(const std::string& counters) {
  return parse_scenario("[scenario]\nname = \"s\"\n[rig]\nname = \"r\"\n[workload]\nbuiltin = \"vector_add\"\n"
                        "elements = 16\n[counters]\ngroups = \"npu-driver-stats\"\n" + counters,
                        std::string(HARNESS_SOURCE_DIR) + "/scenarios/t.toml");
}

std::string error_of(const std::string& counters) {
  Result<Scenario> s = parse(counters);
  EXPECT_FALSE(s) << counters;
  if (s) return "";
  std::string m = s.error().message;
  const std::string prefix = std::string(HARNESS_SOURCE_DIR) + "/scenarios/";
  return m.rfind(prefix, 0) == 0 ? m.substr(prefix.size()) : m;
}

TEST(ParseCounters, TheCataloguesKeyFormsHoldForEveryCounterOfTheGroups) {
  const CatalogueEntry* entry = find_catalogue_entry(Level::counters, "counter.MEM_STALL_CYCLES");
  ASSERT_NE(entry, nullptr);
  ASSERT_EQ(entry->expectation_keys(),
            (std::vector<std::string>{"<name>_min", "<name>_max", "baseline.<name>_drop_min", "baseline.<name>_rise_max",
                                      "baseline.<name>_follows"}));
  Result<Scenario> s = parse("[counters.expect]\nMEM_STALL_CYCLES_max = 5e9\nL2_MISS_min = 10\n"
                             "[counters.expect.baseline]\nMEM_STALL_CYCLES_drop_min = 0.5\n"
                             "L2_MISS_CYCLES_follows = \"MEM_STALL_CYCLES\"\nCYCLES_rise_max = \"10 %\"\n");
  ASSERT_TRUE(s) << s.error().message;
  const CountersConfig& c = *s->counters;
  ASSERT_EQ(c.expectations.size(), 2u);
  for (const Expectation& e : c.expectations) {
    if (e.key == "MEM_STALL_CYCLES_max") {
      EXPECT_EQ(e.metric, "counter.MEM_STALL_CYCLES");
      EXPECT_EQ(e.bound, Bound::max);
      EXPECT_EQ(e.number, 5e9);
    } else {
      EXPECT_EQ(e.key, "L2_MISS_min");
      EXPECT_EQ(e.metric, "counter.L2_MISS");
      EXPECT_EQ(e.bound, Bound::min);
    }
  }
  using Kind = BaselineCounterExpectation::Kind;
  ASSERT_EQ(c.baseline_expectations.size(), 3u);
  for (const BaselineCounterExpectation& b : c.baseline_expectations) {
    if (b.key == "MEM_STALL_CYCLES_drop_min") {
      EXPECT_EQ(b.kind, Kind::drop_min);
      EXPECT_EQ(b.counter, "MEM_STALL_CYCLES");
      EXPECT_EQ(b.fraction, 0.5);
    } else if (b.key == "L2_MISS_CYCLES_follows") {
      EXPECT_EQ(b.kind, Kind::follows);
      EXPECT_EQ(b.lead, "MEM_STALL_CYCLES");
    } else {
      EXPECT_EQ(b.key, "CYCLES_rise_max");
      EXPECT_EQ(b.kind, Kind::rise_max);
      EXPECT_DOUBLE_EQ(b.fraction, 0.1);
    }
  }
}

TEST(ParseCounters, AnUnknownKeyNamesItsLineAndTheClosestKey) {
  EXPECT_EQ(error_of("[counters.expect]\nMEM_STALL_CYCLE_max = 1\n"),
            "t.toml:11:1: unknown key 'MEM_STALL_CYCLE_max' in [counters.expect]; did you mean 'MEM_STALL_CYCLES_max'?");
  EXPECT_EQ(error_of("[counters.expect.baseline]\nL2_MISS_rise_maxx = 0.1\n"),
            "t.toml:11:1: unknown key 'L2_MISS_rise_maxx' in [counters.expect.baseline] (expected <counter>_drop_min, "
            "<counter>_rise_max or <counter>_follows); did you mean 'L2_MISS_rise_max'?");
}

TEST(ParseCounters, WindowsDefaultToOneAndReadEachIterationIsOnePerIteration) {
  const std::pair<const char*, std::int64_t> cases[] = {
      {"iterations = 20\n", 1},
      {"iterations = 200\nwindows = 10\n", 10},
      {"iterations = 7\nread_each_iteration = true\n", 7},
      {"iterations = 7\nread_each_iteration = true\nwindows = 7\n", 7},
  };
  for (const auto& [keys, windows] : cases) {
    Result<Scenario> s = parse(keys);
    ASSERT_TRUE(s) << s.error().message;
    EXPECT_EQ(s->counters->windows, windows) << keys;
  }
}

TEST(ParseCounters, MoreWindowsThanIterationsOrAConflictNamesTheLine) {
  EXPECT_EQ(error_of("iterations = 5\nwindows = 6\n"),
            "t.toml:11:11: [counters] windows: is 6, more than the 5 iterations to read them over");
  EXPECT_EQ(error_of("windows = 2\n"),
            "t.toml:10:11: [counters] windows: is 2, more than the 1 iteration to read them over");
  EXPECT_EQ(error_of("iterations = 5\nread_each_iteration = true\nwindows = 2\n"),
            "t.toml:12:11: [counters] windows: is 2 but read_each_iteration = true reads 5 windows, one per "
            "iteration: set one of the two");
  EXPECT_EQ(error_of("iterations = 5\nwindows = 0\n").substr(0, 38), "t.toml:11:11: [counters] windows must ");
}

}  // namespace
}  // namespace harness
