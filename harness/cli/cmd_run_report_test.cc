// `harness run` writes an HTML report and ends its console output with the
// verdict table and the report's path.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "harness/cli/commands.h"

namespace harness {
namespace {

namespace fs = std::filesystem;

class RunReport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("harness-run-report-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // The smallest real run: a tiny built-in kernel timed a few times, one expectation.
    std::ofstream(dir_ / "s.toml") << R"([scenario]
name = "tiny"
[rig]
name = "test-host"
[workload]
name = "vector-add"
builtin = "vector_add"
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
  void TearDown() override { fs::remove_all(dir_); }

  int run(std::vector<std::string> extra) {
    std::vector<std::string> argv = {"harness", "--db", (dir_ / "runs.sqlite").string(), "run",
                                     (dir_ / "s.toml").string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    std::vector<const char*> c;
    for (const std::string& a : argv) c.push_back(a.c_str());
    return run_cli(static_cast<int>(c.size()), c.data(), out_, err_);
  }

  fs::path dir_;
  std::ostringstream out_, err_;
};

TEST_F(RunReport, DefaultReportSitsNextToTheStoreAndEndsTheOutput) {
  ASSERT_EQ(run({}), 0) << err_.str() << out_.str();
  const std::string path = (dir_ / "runs.sqlite.report-1.html").string();
  ASSERT_TRUE(fs::exists(path));
  std::string out = out_.str();
  std::size_t table = out.rfind("level     check");
  ASSERT_NE(table, std::string::npos) << out;
  EXPECT_GT(table, out.find("stored as run 1 in "));
  EXPECT_NE(out.find("latency   latency.expect.p95_over_p50_max <= 1000", table), std::string::npos) << out;
  const std::string last = "report: " + path + "\n";
  ASSERT_GE(out.size(), last.size());
  EXPECT_EQ(out.substr(out.size() - last.size()), last) << out;
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
