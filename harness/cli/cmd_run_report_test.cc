// `harness run` writes an HTML report and ends its console output with a
// compact summary (verdicts, headline figures per level), where the run is
// stored and the report's path; --verbose puts every metric before it.
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <sstream>

#include <gtest/gtest.h>

#include "tests/support/host_scenario.h"
#include "tests/support/run_cli.h"
#include "tests/support/scratch_dir.h"

namespace harness {
namespace {

namespace fs = std::filesystem;

class RunReport : public testing_support::ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    // The smallest real run: a tiny built-in kernel timed a few times, one expectation.
    std::ofstream(dir_ / "s.toml") << testing_support::host_scenario("tiny") << R"(name = "vector-add"
elements = 1024
[latency]
iterations = 20
warmup = 2
min_duration = "1 ms"
timeout = "30 s"
[latency.expect]
p95_over_p50_max = 1000.0
)";
  }
  int run(std::vector<std::string> extra) {
    extra.insert(extra.begin(), {"--db", (dir_ / "runs.sqlite").string(), "run", (dir_ / "s.toml").string()});
    return testing_support::run_cli_in_process(extra, out_, err_);
  }

  std::ostringstream out_, err_;
};

TEST_F(RunReport, DefaultReportSitsNextToTheStoreAndEndsTheOutput) {
  ASSERT_EQ(run({}), 0) << err_.str() << out_.str();
  const std::string path = (dir_ / "runs.sqlite.report-1.html").string();
  ASSERT_TRUE(fs::exists(path));
  std::string out = out_.str();
  // Verdicts first, then the headline figures, then where the run and its report are.
  EXPECT_EQ(out.find("run 1  scenario tiny  rig test-host  live  passed\n\nlevel     check"), 0u) << out;
  std::size_t table = out.find("level     check");
  std::size_t verdict = out.find("latency   latency.expect.p95_over_p50_max <= 1000", table);
  EXPECT_NE(verdict, std::string::npos) << out;
  std::size_t headline = out.find("\nlevel 4 latency   p50 ");
  EXPECT_GT(headline, verdict) << out;
  EXPECT_NE(out.find(" (measured)", headline), std::string::npos) << out;
  EXPECT_NE(out.find("\nlevel 3 ddr       unavailable: the scenario has no [ddr] section"), std::string::npos) << out;
  std::size_t stored = out.find("\nstored as run 1 in " + (dir_ / "runs.sqlite").string() +
                                "; every metric: harness show 1\n");
  EXPECT_GT(stored, headline) << out;
  const std::string last = "report: " + path + "\n";
  ASSERT_GE(out.size(), last.size());
  EXPECT_EQ(out.substr(out.size() - last.size()), last) << out;
  // The summary, not every metric with its source.
  EXPECT_EQ(out.find("latency_p50_ci_low"), std::string::npos) << out;
  EXPECT_LT(std::count(out.begin(), out.end(), '\n'), 20) << out;
  // Progress on stderr: the milestones, as a log keeps them.
  EXPECT_NE(err_.str().find("harness: level 4: latency (iterations on the device)\n"), std::string::npos) << err_.str();
}

TEST_F(RunReport, VerboseListsEveryMetricBeforeTheSummary) {
  ASSERT_EQ(run({"--verbose", "--no-report"}), 0) << err_.str() << out_.str();
  std::string out = out_.str();
  std::size_t every = out.find("\nlevel 4 latency\n  iterations ");
  ASSERT_NE(every, std::string::npos) << out;
  EXPECT_NE(out.find("  latency_p50_ci_low "), std::string::npos) << out;
  EXPECT_GT(out.find("level     check"), every);
  EXPECT_NE(out.find("\nstored as run 1 in " + (dir_ / "runs.sqlite").string() + "\n"), std::string::npos) << out;
}

TEST_F(RunReport, ReportPathAndNoReport) {
  const std::string path = (dir_ / "mine.html").string();
  ASSERT_EQ(run({"--report", path}), 0) << err_.str();
  EXPECT_TRUE(fs::exists(path));
  out_.str("");
  ASSERT_EQ(run({"--no-report"}), 0) << err_.str();
  EXPECT_FALSE(fs::exists(dir_ / "runs.sqlite.report-2.html"));
  EXPECT_EQ(out_.str().find("report: "), std::string::npos);
}

}  // namespace
}  // namespace harness
