#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "harness/cli/commands.h"
#include "harness/store/store.h"
#include "reports/testdata/case_study_runs.h"
#include "tests/support/run_cli.h"
#include "tests/support/scratch_dir.h"

namespace harness {
namespace {

namespace fs = std::filesystem;

class ReportCommand : public testing_support::ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    db_ = (dir_ / "runs.sqlite").string();
    Result<Store> store = Store::open(db_);
    ASSERT_TRUE(store) << store.error().message;
    Result<std::int64_t> a = store->insert_run(testdata::case_study_run(1));
    Result<std::int64_t> b = store->insert_run(testdata::case_study_run(6));
    ASSERT_TRUE(a && b);
    day1_ = *a;
    day6_ = *b;
  }
  int run(std::vector<std::string> args) {
    args.insert(args.begin(), {"--db", db_, "report"});
    out_.str("");
    err_.str("");
    return testing_support::run_cli_in_process(args, out_, err_);
  }

  static std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  std::string db_;
  std::int64_t day1_ = 0, day6_ = 0;
  std::ostringstream out_, err_;
};

TEST_F(ReportCommand, WritesHtmlAgainstAnotherRun) {
  fs::path html = dir_ / "r.html";
  ASSERT_EQ(run({std::to_string(day6_), "--against", std::to_string(day1_), "-o", html.string()}), 0) << err_.str();
  EXPECT_EQ(err_.str(), "harness: wrote " + html.string() + "\n");
  std::string text = slurp(html);
  EXPECT_NE(text.find("<h3>Compared with run " + std::to_string(day1_) + "</h3>"), std::string::npos);
  EXPECT_NE(text.find("baseline (arrow: baseline to this run)"), std::string::npos);
  EXPECT_FALSE(fs::exists(html.string() + ".tmp"));
}

TEST_F(ReportCommand, MarkdownAndJunitAndJsonOnStandardOutput) {
  ASSERT_EQ(run({std::to_string(day6_), "--format", "md"}), 0) << err_.str();
  EXPECT_NE(out_.str().find("### Verdicts"), std::string::npos);
  ASSERT_EQ(run({std::to_string(day6_), "--format", "junit"}), 0) << err_.str();
  EXPECT_EQ(out_.str().rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", 0), 0u);
  ASSERT_EQ(run({std::to_string(day6_), "--format", "json", "--against", std::to_string(day1_)}), 0) << err_.str();
  EXPECT_NE(out_.str().find("\"comparison\""), std::string::npos);
  EXPECT_NE(out_.str().find("\"values\": ["), std::string::npos);  // raw samples are in the full data
}

TEST_F(ReportCommand, UnknownFormatIsBadInput) {
  EXPECT_EQ(run({std::to_string(day6_), "--format", "pdf"}), 2);
  EXPECT_EQ(err_.str(), "harness: error: unknown report format 'pdf': choose html, md, json, junit or lava\n");
}

// The table of report formats is what --help shows, row by row.
TEST_F(ReportCommand, HelpPrintsTheFormatTable) {
  ASSERT_EQ(run({"--help"}), 0) << err_.str();
  EXPECT_NE(out_.str().find(
                "Report formats:\n"
                "  html   .html  a self-contained page for people: charts, verdicts, hints (the default)\n"
                "  md     .md    Markdown for CI comments and wikis\n"
                "  json   .json  every metric, verdict and sample, for scripts\n"
                "  junit  .xml   JUnit XML: a test case per verdict and per judged metric\n"
                "  lava   .lava  LAVA test-case signals with measurements, for a LAVA job's output\n"),
            std::string::npos)
      << out_.str();
}

// Without --format, -o's extension picks the format; --format wins over it.
TEST_F(ReportCommand, OutputExtensionPicksTheFormat) {
  fs::path md = dir_ / "r.md", lava = dir_ / "r.lava", forced = dir_ / "r.txt";
  ASSERT_EQ(run({std::to_string(day6_), "-o", md.string()}), 0) << err_.str();
  EXPECT_NE(slurp(md).find("### Verdicts"), std::string::npos);
  ASSERT_EQ(run({std::to_string(day6_), "--against", std::to_string(day1_), "-o", lava.string()}), 0) << err_.str();
  EXPECT_EQ(slurp(lava).rfind("<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=", 0), 0u);
  EXPECT_NE(slurp(lava).find("TEST_CASE_ID=compare."), std::string::npos);
  ASSERT_EQ(run({std::to_string(day6_), "--format", "json", "-o", forced.string()}), 0) << err_.str();
  EXPECT_EQ(slurp(forced).rfind("{\n  \"run\": {", 0), 0u);
  fs::path plain = dir_ / "r.txt2";
  ASSERT_EQ(run({std::to_string(day6_), "-o", plain.string()}), 0) << err_.str();
  EXPECT_NE(slurp(plain).find("<html"), std::string::npos);  // no extension of the table: html
}

TEST_F(ReportCommand, UnknownNamedBaselineIsNamed) {
  EXPECT_EQ(run({std::to_string(day6_), "--baseline", "day1"}), 2);
  EXPECT_EQ(err_.str(), "harness: error: no baseline named 'day1' (see 'harness baseline list')\n");
}

TEST_F(ReportCommand, UnwritablePathNamesIt) {
  std::string path = (dir_ / "no-such-dir" / "r.html").string();
  EXPECT_EQ(run({std::to_string(day6_), "-o", path}), 2);
  EXPECT_EQ(err_.str(), "harness: error: cannot write report " + path + ": cannot create a temporary file in " +
                            (dir_ / "no-such-dir").string() + ": No such file or directory\n");
}

// A symlink planted where the old fixed temporary name was, and one at the
// report's own name: the first is never followed, the second is replaced
// (rename swaps the link itself), so the file it points at is untouched.
TEST_F(ReportCommand, PlantedSymlinksAreNotFollowed) {
  fs::path victim = dir_ / "victim.txt";
  std::ofstream(victim) << "precious\n";
  fs::path html = dir_ / "r.html";
  fs::create_symlink(victim, html.string() + ".tmp");
  fs::create_symlink(victim, html);
  ASSERT_EQ(run({std::to_string(day6_), "-o", html.string()}), 0) << err_.str();
  EXPECT_EQ(slurp(victim), "precious\n");
  EXPECT_FALSE(fs::is_symlink(html));
  EXPECT_NE(slurp(html).find("<html"), std::string::npos);
  for (const auto& e : fs::directory_iterator(dir_)) {
    EXPECT_EQ(e.path().filename().string().find(".r.html."), std::string::npos) << "temporary left: " << e.path();
  }
}

}  // namespace
}  // namespace harness
