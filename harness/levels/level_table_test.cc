#include "harness/levels/level_table.h"

#include <set>

#include <gtest/gtest.h>

namespace harness {
namespace {

TEST(LevelTable, EveryLevelHasOneRowWithEveryColumn) {
  std::set<Level> seen;
  for (const LevelRow& row : level_table()) {
    EXPECT_TRUE(seen.insert(row.level).second) << level_name(row.level);
    EXPECT_NE(row.analyse, nullptr);
    EXPECT_NE(row.expectations, nullptr);
    EXPECT_NE(row.baseline, nullptr);
    EXPECT_FALSE(row.report_section.empty());
    EXPECT_EQ(&level_row(row.level), &row);
  }
  for (Level level : kAllLevels) EXPECT_TRUE(seen.count(level)) << level_name(level);
}

TEST(LevelTable, AnalysisRunsTheLevelsWhoseFiguresOthersUseFirst) {
  auto position = [](Level level) {
    int i = 0;
    for (const LevelRow& row : level_table()) {
      if (row.level == level) return i;
      ++i;
    }
    return -1;
  };
  // A kernel's bytes may come from levels 2 and 3; level 5's FP16 candidates need level 1's profile.
  EXPECT_LT(position(Level::counters), position(Level::roofline));
  EXPECT_LT(position(Level::ddr), position(Level::roofline));
  EXPECT_LT(position(Level::roofline), position(Level::accuracy));
  std::vector<Level> shown;
  for (const LevelRow* row : levels_in_report_order()) shown.push_back(row->level);
  EXPECT_EQ(shown, std::vector<Level>(std::begin(kAllLevels), std::end(kAllLevels)));
}

TEST(LevelTable, ALevelAbsentFromTheScenarioSaysWhy) {
  Scenario none;
  Recording nothing;
  for (const LevelRow& row : level_table()) {
    Analysis a;
    row.analyse(none, nothing, Provenance::measured, a);
    EXPECT_TRUE(row.expectations(none).empty());
    EXPECT_TRUE(row.baseline(none, a, a).empty());
    if (row.level == Level::accuracy) continue;  // opt-in: nothing without [accuracy]
    ASSERT_FALSE(a.metrics.empty()) << level_name(row.level);
    EXPECT_FALSE(a.metrics.front().value) << level_name(row.level);
    EXPECT_NE(a.metrics.front().unavailable.find("the scenario has no ["), std::string::npos)
        << a.metrics.front().unavailable;
  }
}

}  // namespace
}  // namespace harness
