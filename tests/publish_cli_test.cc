// `harness publish` through the executable, on a store filled by
// `harness replay` of the bundled fixtures.
#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "probes/process.h"
#include "tests/support/harness_cli_test.h"

namespace harness {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class PublishCli : public testing_support::HarnessCliTest {
 protected:
  void replay(const std::string& fixture) {
    CommandResult r = harness({"replay", std::string(HARNESS_SOURCE_DIR) + "/fixtures/" + fixture});
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  }
};

TEST_F(PublishCli, PublishesReplayedRunsAndRepublishesNothingWhenNothingChanged) {
  replay("case-study/day1");
  replay("case-study/day5");
  replay("host/localhost-2026-11-29");
  const std::string site = (dir_ / "site").string();
  CommandResult first = harness({"publish", site});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  // Two scenario and rig pairs: day 5 of the case study fails a check (regressed), the host run passes;
  // one or two runs a series are too few for a level shift.
  EXPECT_THAT(first.out, HasSubstr("published 3 runs to " + site + ": "));
  EXPECT_THAT(first.out, HasSubstr(", 1 of 2 scenario and rig pairs regressed\npages: "));
  EXPECT_THAT(first.out, HasSubstr(" written, 0 unchanged; run reports: 3 written, 0 unchanged; 0 removed\n"));
  EXPECT_THAT(first.out, HasSubstr("open " + site + "/index.html\n"));
  EXPECT_TRUE(fs::is_regular_file(dir_ / "site" / "index.html"));
  EXPECT_TRUE(fs::is_regular_file(dir_ / "site" / "runs" / "3.html"));

  CommandResult again = harness({"publish", site});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_THAT(again.out, HasSubstr("pages: 0 written, "));
  EXPECT_THAT(again.out, HasSubstr(" unchanged; run reports: 0 written, 3 unchanged; 0 removed\n"));

  replay("case-study/day5");
  CommandResult json = harness({"--json", "publish", site, "--scenario", "whisper-medium-ryzen-ai"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr("\"runs\": 3"));
  EXPECT_THAT(json.out, HasSubstr("\"reports_written\": 1"));
  EXPECT_THAT(json.out, HasSubstr("\"removed\": "));
  // The series cache of the unfiltered site is not of these filters: read from the store, and said.
  EXPECT_THAT(json.out, HasSubstr("\"from_series_cache\": false"));
  EXPECT_EQ(json.err, "note: " + site + "/.publish-series.cache: written for another store schema or other "
                      "--scenario/--rig filters; every metric value read from the store\n");
  EXPECT_FALSE(fs::exists(dir_ / "site" / "runs" / "3.html"));  // the host run is not of that scenario
}

TEST_F(PublishCli, BadSinceAndAForeignFolderExitTwo) {
  replay("case-study/day1");
  CommandResult bad = harness({"publish", (dir_ / "site").string(), "--since", "2026/11/01"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "harness: error: --since '2026/11/01': not a date (YYYY-MM-DD)\n");
  EXPECT_FALSE(fs::exists(dir_ / "site"));

  fs::create_directories(dir_ / "docs");
  std::ofstream(dir_ / "docs" / "README") << "mine\n";
  CommandResult foreign = harness({"publish", (dir_ / "docs").string()});
  EXPECT_EQ(foreign.exit_code, 2);
  EXPECT_EQ(foreign.err, "harness: error: " + (dir_ / "docs").string() +
                             ": not empty and holds no published site (.publish-manifest.json); publish into a new "
                             "or empty folder\n");
}

}  // namespace
}  // namespace harness
