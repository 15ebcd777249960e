// The metric catalogue is the contract between the levels and the reports,
// checked on real runs: every recorded bundle under fixtures/ replayed, and a
// level-5 run of the tinynet fixture (with its layer profile) recorded and
// replayed through the CLI. A level that emits a name the catalogue lacks, or
// a report (HTML, Markdown, the regression tables) that reads a name no
// replayed run emits, fails here.
#include <filesystem>
#include <fstream>
#include <set>

#include <unistd.h>

#include <gtest/gtest.h>

#include "harness/bundle/replay.h"
#include "harness/model/metric_catalogue.h"
#include "probes/process.h"
#include "reports/html.h"
#include "reports/markdown.h"
#include "reports/regression_tables.h"

#include "tests/support/replayed_fixture.h"
#include "tests/support/run_harness.h"

namespace harness {
namespace {

namespace fs = std::filesystem;
using testing_support::kFixtures;
using testing_support::replayed;

// Level 5 has no stored bundle: record one from the tinynet dumps and its
// layer profile (so that the FP16-fallback candidates appear), then replay it.
RunRecord accuracy_run(const fs::path& dir) {
  const std::string tiny = (kFixtures / "accuracy" / "tinynet").string() + "/";
  const fs::path scenario = dir / "tinynet.toml";
  std::ofstream(scenario) << "[scenario]\nname = \"tinynet-accuracy\"\n[rig]\nname = \"localhost\"\n"
                             "[workload]\nbuiltin = \"vector_add\"\nelements = 16\n"
                             "[rig.compute]\nint8 = \"4 TOPS\"\n[rig.memory]\ndram = \"20 GB/s\"\n"
                             "[roofline]\nhost_benchmarks = false\n[roofline.profile]\nfile = \""
                          << tiny << "layer-profile.csv\"\nprecision = \"int8\"\n[accuracy]\nreference = \"" << tiny
                          << "reference\"\ndevice = \"" << tiny << "device\"\nmap = \"" << tiny
                          << "layer-map.txt\"\ncosine_min = 0.995\npsnr_min_db = 20.0\n";
  const std::string db = (dir / "runs.db").string();
  auto harness = [&](std::vector<std::string> args) {
    args.push_back("--db");
    args.push_back(db);
    return testing_support::run_harness(args, CommandOptions{});
  };
  CommandResult run = harness({"run", scenario.string()});
  EXPECT_EQ(run.exit_code, 1) << run.err;  // head_box and softmax fail cosine_min
  CommandResult exported = harness({"export", "1", (dir / "bundle").string()});
  EXPECT_EQ(exported.exit_code, 0) << exported.err;
  return replayed(dir / "bundle");
}

class CatalogueOnFixtures : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(kFixtures))
      if (e.is_regular_file() && e.path().filename() == "manifest.json")
        runs_->emplace_back(fs::relative(e.path().parent_path(), kFixtures).string(), replayed(e.path().parent_path()));
    // One folder per process: CTest runs each test of the suite in its own
    // process, side by side, and each process sets the suite up anew.
    scratch_ = fs::temp_directory_path() / ("harness_catalogue_fixtures_" + std::to_string(::getpid()));
    fs::remove_all(scratch_);
    fs::create_directories(scratch_);
    runs_->emplace_back("accuracy/tinynet (recorded)", accuracy_run(scratch_));
  }
  static void TearDownTestSuite() { fs::remove_all(scratch_); }

  static inline std::vector<std::pair<std::string, RunRecord>>* runs_ =
      new std::vector<std::pair<std::string, RunRecord>>;
  static inline fs::path scratch_;
};

TEST_F(CatalogueOnFixtures, EveryLevelIsReplayed) {
  std::set<Level> emitted;
  for (const auto& [name, run] : *runs_)
    for (const Metric& m : run.analysis.metrics)
      if (m.value) emitted.insert(m.level);
  for (Level level : kAllLevels)
    EXPECT_TRUE(emitted.count(level)) << level_name(level) << " has no figure in any fixture";
}

TEST_F(CatalogueOnFixtures, EveryEmittedNameIsInTheCatalogueWithItsUnitAndDirection) {
  for (const auto& [name, run] : *runs_) {
    EXPECT_FALSE(run.analysis.metrics.empty()) << name;
    for (const std::string& v : catalogue_violations(run.analysis)) ADD_FAILURE() << name << ": " << v;
  }
}

TEST_F(CatalogueOnFixtures, EveryNameTheReportsReadIsEmittedBySomeReplayedRun) {
  // Render every run as HTML and Markdown, the case study also against its
  // first day, so that each report section does its lookups.
  const RunRecord* day1 = nullptr;
  for (const auto& [name, run] : *runs_)
    if (name == "case-study/day1") day1 = &run;
  ASSERT_NE(day1, nullptr);
  for (const auto& [name, run] : *runs_) {
    EXPECT_FALSE(render_html({run, std::nullopt, std::nullopt}).empty());
    EXPECT_FALSE(render_markdown({run, std::nullopt, std::nullopt}).empty());
    if (name.starts_with("case-study/") && &run != day1) {
      EXPECT_FALSE(render_html({run, *day1, value_differences(*day1, run, "run 1")}).empty());
    }
  }
  // The regression tables of `history --table` rank the stored metrics by name.
  for (const auto& [name, run] : *runs_)
    for (const Metric& m : run.analysis.metrics)
      for (const RegressionTableSpec& spec : regression_table_specs()) (void)regression_row_rank(spec.kind, m.name);
  const std::vector<CatalogueLookup> lookups = catalogue_lookups_so_far();
  EXPECT_GE(lookups.size(), 10u);
  for (const CatalogueLookup& l : lookups) {
    const CatalogueEntry& entry = catalogue_pattern(l.pattern);
    bool emitted = false;
    for (const auto& [name, run] : *runs_) {
      for (const Metric& m : run.analysis.metrics)
        // A level's placeholder ("counters") is only ever unavailable; any other name must carry a value.
        emitted = emitted || ((m.value || entry.name == level_name(m.level)) &&
                              find_catalogue_entry(m.level, m.name, Series::metric) == &entry);
      for (const SampleSet& s : run.analysis.samples)
        emitted = emitted || find_catalogue_entry(s.level, s.name, Series::samples) == &entry;
    }
    EXPECT_TRUE(emitted) << "a report reads " << l.pattern << " (" << level_name(l.level)
                         << "), which no replayed fixture emits with a value";
  }
}

}  // namespace
}  // namespace harness
