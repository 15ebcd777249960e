#include "harness/runner/acquire_table.h"

#include <set>

#include <gtest/gtest.h>

#include "harness/levels/level_table.h"
#include "harness/model/metric_catalogue.h"

namespace harness {
namespace {

Scenario parse(const std::string& sections) {
  Result<Scenario> s = parse_scenario("[scenario]\nname = \"t\"\n[rig]\nname = \"r\"\n" + sections +
                                          "[workload]\nbuiltin = \"vector_add\"\nelements = 16\n",
                                      "s.toml");
  EXPECT_TRUE(s) << s.error().message;
  return s ? *s : Scenario{};
}

// A level that is analysed is acquired: the two tables have the same levels.
TEST(AcquireTable, EveryRowOfTheLevelTableHasOneAcquireRowWithEveryColumn) {
  std::set<Level> acquired;
  for (const AcquireRow& row : acquire_table()) {
    EXPECT_TRUE(acquired.insert(row.level).second) << level_name(row.level);
    EXPECT_NE(row.asked, nullptr);
    EXPECT_NE(row.needs_device, nullptr);
    EXPECT_NE(row.how, nullptr);
    EXPECT_NE(row.acquire, nullptr);
  }
  std::set<Level> analysed;
  for (const LevelRow& row : level_table()) analysed.insert(row.level);
  EXPECT_EQ(acquired, analysed);
}

TEST(AcquireTable, LevelsAreAcquiredOnTheDeviceFirstThenTheCaptureTheWindowAndTheDumps) {
  std::vector<Level> order;
  for (const AcquireRow& row : acquire_table()) order.push_back(row.level);
  EXPECT_EQ(order, (std::vector<Level>{Level::roofline, Level::counters, Level::ddr, Level::latency, Level::accuracy}));
}

TEST(AcquireTable, AnAbsentLevelIsNotAsked) {
  Scenario none = parse("");
  for (const AcquireRow& row : acquire_table()) EXPECT_FALSE(row.asked(none)) << level_name(row.level);
}

TEST(AcquireTable, TheWindowGoesToItsLevelElseToLevelTwoElseNowhere) {
  auto owner = [](const Scenario& s) -> std::string {
    const AcquireRow* row = window_owner(s);
    return row ? std::string(level_name(row->level)) : "none";
  };
  EXPECT_EQ(owner(parse("")), "none");
  EXPECT_EQ(owner(parse("[latency]\niterations = 3\n")), "latency");
  EXPECT_EQ(owner(parse("window = \"none\"\n[latency]\niterations = 3\n")), "none");
  // Level 2's iterations: named, or the default latency window without [latency].
  const std::string counters = "[counters]\ngroups = \"linux-host\"\n";
  EXPECT_EQ(owner(parse(counters)), "counters");
  EXPECT_EQ(owner(parse("window = \"counters\"\n" + counters + "[latency]\niterations = 3\n")), "counters");
  EXPECT_EQ(owner(parse(counters + "[latency]\niterations = 3\n")), "latency");
  EXPECT_EQ(owner(parse("window = \"counters\"\n[latency]\niterations = 3\n")), "none");
}

// The levels the rig's stability readings surround are the ones whose work
// runs on the device, and each has the gate's rows in the catalogue.
TEST(AcquireTable, TheStabilityReadingsSurroundTheDeviceLevelsWhichHaveTheGatesMetrics) {
  std::vector<Level> surrounded;
  for (const AcquireRow& row : acquire_table()) {
    if (row.stability == StabilityAround::none) continue;
    surrounded.push_back(row.level);
    const std::string gate = "stability." + std::string(level_name(row.level));
    EXPECT_NE(find_catalogue_entry(row.level, gate), nullptr) << gate;
    EXPECT_NE(find_catalogue_entry(row.level, gate + ".canary_change"), nullptr) << gate;
  }
  EXPECT_EQ(surrounded, (std::vector<Level>{Level::roofline, Level::counters, Level::latency}));
}

}  // namespace
}  // namespace harness
