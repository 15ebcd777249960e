// Names that carry terminal control sequences (issue 29): a scenario, a rig,
// a reason and a baseline stored with ESC, BEL, CR, LF and C1 controls (as an
// older harness or a tampered store could hold them) are shown escaped by
// every command that prints them: nothing clears the screen, sets the window
// title or starts a line of its own.
#include <filesystem>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "harness/store/store.h"
#include "probes/process.h"
#include "tests/support/publish_store.h"
#include "tests/support/scratch_dir.h"

namespace harness {
namespace {

using ::testing::HasSubstr;

// Clear the screen, set the window title, 8-bit CSI, a carriage return and
// a line break.
const std::string kScenario = "s\x1b[2J\x1b]0;owned\x07\xc2\x9b" "31m\rfake\nline";
const std::string kRig = "rig\x1b[H\x9b";
const std::string kReason = "reason\x1b[31m\x07";

class HostileNames : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing_support::fresh_test_dir("harness-hostile-names");
    db_ = (dir_ / "runs.sqlite").string();
    Result<Store> store = Store::open(db_);
    ASSERT_TRUE(store) << store.error().message;
    for (const char* day : {"2026-11-01", "2026-11-02", "2026-11-03"}) {
      Result<RunRecord> night = test_support::replayed_night("case-study/day6", kRig, day);
      ASSERT_TRUE(night) << night.error().message;
      night->scenario_name = kScenario;
      night->reason = kReason;
      Result<std::int64_t> id = store->insert_run(*night);
      ASSERT_TRUE(id) << id.error().message;
      ids_.push_back(*id);
    }
    ASSERT_TRUE(store->set_baseline("night\x1b[2J", ids_[0], "2026-11-04T00:00:00Z"));
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // The command's stdout and stderr, checked for any control byte but a line
  // break, and for a C1 control in UTF-8.
  std::string harness(std::vector<std::string> args) {
    args.insert(args.begin(), {HARNESS_BINARY, "--db", db_});
    Result<CommandResult> r = run_command(args, {.timeout_s = 120, .max_output = 1 << 24});
    EXPECT_TRUE(r) << r.error().message;
    if (!r) return "";
    const std::string all = r->out + r->err;
    for (std::size_t i = 0; i < all.size(); ++i) {
      const auto c = static_cast<unsigned char>(all[i]);
      EXPECT_FALSE((c < 0x20 && c != '\n') || c == 0x7f || (c >= 0x80 && c <= 0x9f && (i == 0 || static_cast<unsigned char>(all[i - 1]) == 0xc2)))
          << args[3] << ": control byte " << static_cast<int>(c) << " at " << i << " in:\n" << all;
    }
    return all;
  }

  std::filesystem::path dir_;
  std::string db_;
  std::vector<std::int64_t> ids_;
};

TEST_F(HostileNames, RunsAndShowPrintEveryNameEscaped) {
  const std::string list = harness({"runs"});
  EXPECT_THAT(list, HasSubstr("s\\x1b[2J\\x1b]0;owned\\x07\\u009b31m\\x0dfake\\x0aline"));
  EXPECT_THAT(list, HasSubstr("rig\\x1b[H\\x9b"));
  EXPECT_THAT(list, HasSubstr("reason\\x1b[31m\\x07"));
  const std::string show = harness({"show", std::to_string(ids_[2])});
  EXPECT_THAT(show, HasSubstr("scenario s\\x1b[2J\\x1b]0;owned\\x07\\u009b31m\\x0dfake\\x0aline  rig rig\\x1b[H\\x9b"));
  EXPECT_THAT(show, HasSubstr("reason: reason\\x1b[31m\\x07\n"));
}

// The same names, exactly as a user sees them, from the commands that set
// them in a table or a title: history's columns, history --changes and
// compare's title.
TEST_F(HostileNames, HistoryAndCompareShowTheExactEscapedText) {
  const std::string scenario = "s\\x1b[2J\\x1b]0;owned\\x07\\u009b31m\\x0dfake\\x0aline";
  const std::string rig = "rig\\x1b[H\\x9b";
  EXPECT_THAT(harness({"history", "--metric", "latency_p50", "--all-rigs"}), HasSubstr("  " + scenario + "  " + rig + "     "));
  EXPECT_THAT(harness({"history", "--metric", "latency_p50", "--all-rigs", "--changes"}),
              HasSubstr("newest night of scenario " + scenario + " on rig " + rig + ", run " + std::to_string(ids_[2]) + ": "));
  EXPECT_THAT(harness({"compare", std::to_string(ids_[2]), "--against", std::to_string(ids_[0])}),
              HasSubstr("run " + std::to_string(ids_[2]) + " against run " + std::to_string(ids_[0]) + ", scenario " +
                        scenario + ", rig " + rig + "\n"));
  EXPECT_THAT(harness({"compare", std::to_string(ids_[2]), "--baseline", "night\x1b[2J"}),
              HasSubstr("against baseline 'night\\x1b[2J' (run " + std::to_string(ids_[0]) + "), scenario " + scenario));
}

TEST_F(HostileNames, HistoryCompareBaselineReportAndPublishPrintThemEscaped) {
  EXPECT_THAT(harness({"history", "--metric", "latency_p50", "--all-rigs"}), HasSubstr("rig\\x1b[H\\x9b"));
  EXPECT_THAT(harness({"history", "--table", "latency", "--limit", "3"}), HasSubstr("\\x1b"));
  EXPECT_THAT(harness({"compare", std::to_string(ids_[2]), "--against", std::to_string(ids_[0]), "--lava"}),
              HasSubstr("\\x1b"));
  EXPECT_THAT(harness({"baseline", "list"}), HasSubstr("night\\x1b[2J"));
  EXPECT_THAT(harness({"baseline", "show", "night\x1b[2J"}), HasSubstr("baseline 'night\\x1b[2J' of scenario 's\\x1b"));
  for (const char* format : {"md", "html", "junit"}) {
    EXPECT_THAT(harness({"report", std::to_string(ids_[2]), "--format", format}), HasSubstr("\\x1b")) << format;
  }
  harness({"publish", (dir_ / "site").string()});
  // Errors quote names too.
  EXPECT_THAT(harness({"baseline", "show", "gone\x1b]0;t\x07"}), HasSubstr("no baseline named 'gone\\x1b]0;t\\x07'"));
}

}  // namespace
}  // namespace harness
