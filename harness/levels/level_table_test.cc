#include "harness/levels/level_table.h"

#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/model/metric_catalogue.h"

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

// Each level's part of the recording is stored under the level's name and
// comes back; an absent part stays absent.
TEST(LevelTable, EveryLevelsPartOfTheRecordingTravelsUnderItsName) {
  Recording empty;
  for (const LevelRow& row : level_table()) {
    nlohmann::json j = nlohmann::json::object();
    row.recording.save(empty, std::string(level_name(row.level)), j);
    EXPECT_TRUE(j.empty()) << level_name(row.level);
  }
  Recording all;
  all.roofline.emplace().kernels.push_back({"va", {1e-3}, "", {}, 0});
  all.counters.emplace().iterations = 7;
  all.ddr.emplace().capture = "ddr/capture.sr";
  all.latency.emplace().source = "builtin:vector_add";
  all.accuracy.emplace().map = "accuracy/layer-map.txt";
  const nlohmann::json j = all;
  for (Level level : kAllLevels) EXPECT_TRUE(j.contains(std::string(level_name(level)))) << level_name(level);
  EXPECT_EQ(j["counters"]["iterations"], 7);
  Recording back = j.get<Recording>();
  EXPECT_EQ(nlohmann::json(back), j);
  ASSERT_TRUE(back.roofline && back.counters && back.ddr && back.latency && back.accuracy);
  EXPECT_EQ(back.ddr->capture, "ddr/capture.sr");
}

// The files a recording names are the run's artifacts: level 3's capture,
// then level 5's dumps and layer map, each with its kind.
TEST(LevelTable, TheRawFilesOfEachPartAreListedWithTheirKind) {
  Recording rec;
  rec.ddr.emplace().capture = "ddr/capture.sr";
  rec.ddr->format = "sr";
  AccuracyDumpRecording dump;
  dump.role = "device";
  dump.files.push_back({"accuracy/device.npz", "", 0});
  rec.accuracy.emplace().dumps.push_back(dump);
  rec.accuracy->map = "accuracy/layer-map.txt";
  std::vector<RecordedFile> files;
  for (const LevelRow& row : level_table())
    if (row.raw_files) row.raw_files(rec, files);
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[0].name, "ddr/capture.sr");
  EXPECT_EQ(files[0].kind, "sigrok-session");
  EXPECT_EQ(files[1].kind, "accuracy-dump:device");
  EXPECT_EQ(files[2].kind, "accuracy-layer-map");
}

// A headline names a figure its level can emit (counter.ipc is the
// counter groups' metric, an instance of counter.<name>).
TEST(LevelTable, EveryHeadlineFigureIsInItsLevelsCatalogue) {
  for (const LevelRow& row : level_table()) {
    for (const HeadlineFigure& h : row.headline) {
      EXPECT_NE(find_catalogue_entry(row.level, h.name), nullptr) << level_name(row.level) << ": " << h.name;
      EXPECT_FALSE(h.label.empty());
    }
  }
}

}  // namespace
}  // namespace harness
