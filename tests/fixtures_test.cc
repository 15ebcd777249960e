// Every recorded fixture replays to exactly its stored expectation, and the
// seed's case study, replayed, shows what the seed says: day 6 against day 1
// improved at every level with the pass criteria met; day 1 against itself
// changed nothing.
#include <sys/wait.h>

#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/bundle/replay.h"
#include "probes/process.h"

namespace harness {
namespace {

namespace fs = std::filesystem;
const fs::path kFixtures = fs::path(HARNESS_SOURCE_DIR) / "fixtures";

std::vector<fs::path> bundles() {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(kFixtures))
    if (e.path().filename() == "manifest.json") out.push_back(e.path().parent_path());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Fixtures, EveryBundleReplaysToItsExpectation) {
  std::vector<fs::path> all = bundles();
  ASSERT_GE(all.size(), 5u);
  for (const fs::path& dir : all) {
    SCOPED_TRACE(dir.string());
    Result<LoadedBundle> b = load_bundle(dir.string());
    ASSERT_TRUE(b) << b.error().message;
    Result<RunRecord> run = replay_bundle(*b);
    ASSERT_TRUE(run) << run.error().message;
    fs::path expect = dir.string() + ".expect.json";
    std::ifstream in(expect);
    ASSERT_TRUE(in) << "no expectation file " << expect;
    nlohmann::json expected = nlohmann::json::parse(in);
    EXPECT_EQ(describe_fingerprint_difference(expected, analysis_fingerprint(run->analysis)), "");
  }
}

class CaseStudy : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = fs::temp_directory_path() / ("harness-case-study-" + std::to_string(::getpid()) + ".sqlite");
    fs::remove(db_);
    for (const char* day : {"day1", "day3", "day5", "day6"}) {
      CommandResult r = harness({"replay", (kFixtures / "case-study" / day).string()});
      ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
    }
  }
  void TearDown() override {
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(db_.string() + suffix);
  }
  CommandResult harness(std::vector<std::string> args) {
    args.insert(args.begin(), {HARNESS_BINARY, "--db", db_.string()});
    Result<CommandResult> r = run_command(args, {.timeout_s = 120, .max_output = 1 << 22});
    EXPECT_TRUE(r) << r.error().message;
    return r ? *r : CommandResult{};
  }
  fs::path db_;
};

TEST_F(CaseStudy, DaySixAgainstDayOneImprovedEveryLevelAndMetThePassCriteria) {
  CommandResult r = harness({"--json", "compare", "4", "--against", "1"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  std::map<std::string, std::string> verdict;
  for (const auto& m : j["metrics"]) verdict[m["name"]] = m["verdict"];
  EXPECT_EQ(j["summary"]["regressed"], 0);
  for (const char* improved : {"encoder_layer1.intensity", "bandwidth.random_4k", "counter.mem_stall_ratio",
                               "counter.l2_miss_rate", "ddr.dq_active_ratio", "latency_p95", "efficiency"}) {
    EXPECT_EQ(verdict[improved], "improved") << improved;
  }
  ASSERT_FALSE(j["expectations"].empty());
  for (const auto& e : j["expectations"]) EXPECT_EQ(e["status"], "pass") << e.dump();
}

TEST_F(CaseStudy, DayOneAgainstItselfChangedNothing) {
  CommandResult r = harness({"--json", "compare", "1", "--against", "1"});
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["summary"]["regressed"], 0);
  EXPECT_EQ(j["summary"]["improved"], 0);
  EXPECT_EQ(j["summary"]["changed"], 0);
  EXPECT_GT(j["summary"]["unchanged"], 50);
}

TEST_F(CaseStudy, AWorsenedFigureIsNamed) {
  // The other way round, day 6 is the better baseline: day 1 regresses, and
  // the output names the metrics.
  CommandResult r = harness({"compare", "1", "--against", "4"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, ::testing::HasSubstr("latency_p95"));
  EXPECT_THAT(r.out, ::testing::HasSubstr("regressed"));
}

TEST_F(CaseStudy, TheSeedsRegressionTablesShowOneColumnPerDay) {
  CommandResult r = harness({"history", "--table", "bandwidth"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::HasSubstr("bandwidth regression: scenario "));
  EXPECT_THAT(r.out, ::testing::HasSubstr("(4 runs)"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("\nbandwidth.random_4k +7.9 GB/s .* 18.5 GB/s  [+-][0-9.]+ %\n"));
  EXPECT_LT(r.out.find("bandwidth.dram"), r.out.find("bandwidth.random_4k"));  // sequential first
  r = harness({"history", "--table", "latency", "--markdown"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::HasSubstr("| `latency_p50` | 1.24 s |"));
  r = harness({"--json", "history", "--table", "compute"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["rows"][0]["metric"], "ceiling.compute.int8");
  EXPECT_EQ(j[0]["runs"].size(), 4u);
  r = harness({"history", "--table", "bandwith"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, ::testing::HasSubstr("unknown table 'bandwith' (known: bandwidth, compute, latency); did you mean 'bandwidth'?"));
}

}  // namespace
}  // namespace harness
