// End-to-end tests of the harness executable: what a user types, what a
// user sees, what is stored.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/store/sql/connection.h"
#include "probes/process.h"
#include "tests/support/store_engine_test.h"
#include "tests/support/store_engines.h"

namespace harness {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// On each store engine (tests/support/store_engines.h): a run, its listing
// and an interrupted run behave the same on an SQLite file and on a server.
class CliTest : public testing_support::StoreEngineTest {
 protected:
  CliTest() : StoreEngineTest("harness-cli") {}

  // Run in the test's folder: a PostgreSQL store's default report
  // (harness-report-<run>.html in the current folder) lands there, not in
  // the source tree.
  CommandResult harness(std::vector<std::string> args) {
    args.insert(args.begin(), {"/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", dir_.string(), HARNESS_BINARY});
    Result<CommandResult> r = run_command(args, {.timeout_s = 120, .max_output = 1 << 22});
    EXPECT_TRUE(r) << r.error().message;
    return r ? *r : CommandResult{};
  }

  std::string write_scenario(const std::string& name, const std::string& latency_section) {
    std::string path = (dir_ / name).string();
    std::ofstream(path) << R"([scenario]
name = "quick"
[rig]
name = "test-rig"
[rig.memory]
dram = "measure"
[workload]
builtin = "gemm"
m = 32
n = 32
k = 32
[roofline]
repetitions = 2
buffer = "8 MiB"
[[roofline.kernels]]
name = "vector_add"
builtin = "vector_add"
elements = 65536
)" << latency_section;
    return path;
  }
};

TEST_P(CliTest, RunTwiceThenListAndShowWithUnitsAndProvenance) {
  std::string scenario = write_scenario("quick.toml", "[latency]\niterations = 50\nwarmup = 2\n");
  CommandResult first = harness({"run", scenario, "--db", db_});
  EXPECT_EQ(first.exit_code, 0) << first.err;
  EXPECT_THAT(first.out, HasSubstr("stored as run 1 in " + db_));
  CommandResult second = harness({"--db", db_, "run", scenario});
  EXPECT_EQ(second.exit_code, 0) << second.err;

  CommandResult runs = harness({"runs", "--db", db_});
  EXPECT_EQ(runs.exit_code, 0);
  EXPECT_THAT(runs.out, HasSubstr("    1  "));
  EXPECT_THAT(runs.out, HasSubstr("    2  "));
  EXPECT_THAT(runs.out, HasSubstr("quick"));
  EXPECT_THAT(runs.out, HasSubstr("passed"));

  CommandResult show = harness({"show", "2", "--db", db_});
  EXPECT_EQ(show.exit_code, 0) << show.err;
  EXPECT_THAT(show.out, ::testing::ContainsRegex(R"(ceiling\.memory\.dram +[0-9.]+ [kMGT]?B/s +measured +bandwidth\.seq_read)"));
  EXPECT_THAT(show.out, ::testing::ContainsRegex(R"(latency_p50 +[0-9.]+ (ns|us|ms) +measured)"));
  EXPECT_THAT(show.out, HasSubstr("vector_add.intensity"));
  EXPECT_THAT(show.out, HasSubstr("model"));
  EXPECT_THAT(show.out, HasSubstr("ddr  unavailable: the scenario has no [ddr] section"));
}

TEST_P(CliTest, JsonOutputIsMachineReadable) {
  std::string scenario = write_scenario("quick.toml", "[latency]\niterations = 20\nwarmup = 1\n");
  CommandResult run = harness({"--json", "run", scenario, "--db", db_});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  nlohmann::json j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["status"], "passed");
  EXPECT_EQ(j["rig"], "test-rig");
  bool found_unavailable = false;
  for (const auto& m : j["metrics"]) {
    ASSERT_TRUE(m.contains("provenance"));
    if (m["value"].is_null()) {
      found_unavailable = true;
      EXPECT_FALSE(m["unavailable"].get<std::string>().empty());
    }
  }
  EXPECT_TRUE(found_unavailable);
  CommandResult runs = harness({"runs", "--json", "--db", db_});
  EXPECT_EQ(nlohmann::json::parse(runs.out).size(), 1u);
}

TEST_P(CliTest, AFailedVerdictExitsOne) {
  std::string scenario = write_scenario(
      "strict.toml", "[latency]\niterations = 20\n[latency.expect]\nlatency_p50_max = \"1 ns\"\n");
  CommandResult run = harness({"run", scenario, "--db", db_});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_THAT(run.out, HasSubstr("latency.expect.latency_p50_max"));
  EXPECT_THAT(run.out, HasSubstr("fail"));
}

TEST_P(CliTest, BadScenarioExitsTwoWithFileLineColumn) {
  std::string path = (dir_ / "bad.toml").string();
  std::ofstream(path) << "[scenario]\nname = \"x\"\nnmae = 3\n";
  CommandResult run = harness({"run", path, "--db", db_});
  EXPECT_EQ(run.exit_code, 2);
  // Every section's problem at once, in the order of the file (those of the whole file first).
  EXPECT_EQ(run.err, "harness: error: " + path + ": 3 problems:\n  " + path + ": missing required section [rig]\n  " +
                         path + ": missing required section [workload]\n  " + path +
                         ":3:1: unknown key 'nmae' in [scenario]; did you mean 'name'?\n");
  EXPECT_FALSE(std::filesystem::exists(db_)) << "nothing is stored for a scenario that does not parse";
}

TEST_P(CliTest, UsageErrorsExitTwoAndHelpAndVersionExitZero) {
  EXPECT_EQ(harness({"frobnicate"}).exit_code, 2);
  EXPECT_EQ(harness({"run"}).exit_code, 2);
  CommandResult version = harness({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_THAT(version.out, HasSubstr("harness 0."));
  CommandResult help = harness({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  for (const char* sub : {"run", "runs", "show", "replay", "compare", "baseline", "report", "capture"}) {
    EXPECT_THAT(help.out, HasSubstr(sub));
  }
  EXPECT_EQ(harness({"run", "--help"}).exit_code, 0);
  CommandResult show = harness({"show", "7", "--db", db_});
  EXPECT_EQ(show.exit_code, 2);
  EXPECT_EQ(show.err, "harness: error: store " + db_ + ": no run with id 7\n");
}

TEST_P(CliTest, MetricsListsTheCatalogueOfALevel) {
  CommandResult ddr = harness({"metrics", "--level", "3"});
  EXPECT_EQ(ddr.exit_code, 0) << ddr.err;
  EXPECT_THAT(ddr.out, HasSubstr("level 3: ddr\n"));
  EXPECT_THAT(ddr.out, HasSubstr("ddr.transactions.<N>B"));
  EXPECT_EQ(ddr.out.find("level 4: "), std::string::npos);
  CommandResult json = harness({"--json", "metrics", "--level", "latency"});
  EXPECT_EQ(json.exit_code, 0) << json.err;
  nlohmann::json list = nlohmann::json::parse(json.out);
  ASSERT_TRUE(list.is_array());
  for (const nlohmann::json& e : list) EXPECT_EQ(e["level"], "latency");
  CommandResult typo = harness({"metrics", "--level", "latncy"});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_EQ(typo.err,
            "harness: error: --level: no level \"latncy\"; did you mean \"latency\"? (levels: roofline, counters, ddr, "
            "latency, accuracy, or 1-5)\n");
}

// SIGTERM in the middle of a run: stored as aborted with the reason, exit 3,
// and the database intact.
TEST_P(CliTest, SigtermDuringARunIsStoredAsAborted) {
  std::string scenario = write_scenario(
      "long.toml", "[latency]\niterations = 100000000\nmin_duration = \"60 s\"\ntimeout = \"120 s\"\n");
  int err_pipe[2];
  ASSERT_EQ(pipe(err_pipe), 0);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(err_pipe[1], 2);
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    close(err_pipe[0]);
    if (chdir(dir_.c_str()) != 0) _exit(126);  // any report lands in the test's folder
    execl(HARNESS_BINARY, HARNESS_BINARY, "run", scenario.c_str(), "--db", db_.c_str(), nullptr);
    _exit(127);
  }
  close(err_pipe[1]);
  // Wait until the run has reached its latency level, then stop it.
  std::string err;
  char buf[256];
  while (err.find("level 4: latency") == std::string::npos) {
    ssize_t n = read(err_pipe[0], buf, sizeof buf);
    ASSERT_GT(n, 0) << "harness ended before level 4: " << err;
    err.append(buf, static_cast<std::size_t>(n));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  close(err_pipe[0]);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 3);

  std::unique_ptr<sql::Connection> db = target_->connect();
  ASSERT_TRUE(db);
  if (db->engine() == sql::Engine::sqlite) {
    Result<std::unique_ptr<sql::Rows>> check = db->query("PRAGMA integrity_check");
    ASSERT_TRUE(check && (*check)->next());
    EXPECT_EQ((*check)->text(0), "ok");
  }
  Result<std::unique_ptr<sql::Rows>> q = db->query("SELECT status, reason FROM runs");
  ASSERT_TRUE(q) << q.error().message;
  ASSERT_TRUE((*q)->next());
  EXPECT_EQ((*q)->text(0), "aborted");
  EXPECT_EQ((*q)->text(1), "interrupted by SIGTERM");
  EXPECT_FALSE((*q)->next());
  // What was recorded before the signal is kept.
  Result<std::unique_ptr<sql::Rows>> kept =
      db->query("SELECT count(*) FROM metrics WHERE name = 'ceiling.memory.dram' AND value > 0");
  ASSERT_TRUE(kept && (*kept)->next());
  EXPECT_GT((*kept)->int64(0), 0);
}

// replay prints the compact summary that run prints (verdicts, headline
// figures per level); --verbose adds every metric with its source, as show.
TEST_P(CliTest, ReplayPrintsTheSummaryAndVerboseEveryMetric) {
  const std::string day6 = std::string(HARNESS_SOURCE_DIR) + "/fixtures/case-study/day6";
  CommandResult r = harness({"replay", day6, "--db", db_, "--color", "never"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("run 1  scenario whisper-medium-ryzen-ai  rig ryzen-ai-7840hs-tablet  replay  passed\n", 0), 0u)
      << r.out;
  EXPECT_THAT(r.out, HasSubstr("\nlevel 3 ddr       bandwidth 10.89 GB/s, DQ active 0.7258, "));
  EXPECT_THAT(r.out, ::testing::EndsWith("\nstored as run 1; every metric: harness show 1\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("latency_p50_ci_low")));
  CommandResult verbose = harness({"replay", day6, "--db", db_, "--verbose", "--no-store"});
  ASSERT_EQ(verbose.exit_code, 0) << verbose.err;
  EXPECT_THAT(verbose.out, ::testing::ContainsRegex(R"(  latency_p50_ci_low +[0-9.]+ ms +replayed )"));
  EXPECT_LT(verbose.out.find("latency_p50_ci_low"), verbose.out.find("level     check"));
  // show lists every metric too.
  CommandResult show = harness({"show", "1", "--db", db_});
  EXPECT_THAT(show.out, HasSubstr("latency_p50_ci_low"));
}

// A live run recorded as a bundle replays to the same metrics and verdicts:
// the JSON output is identical but for run id, timestamps, origin and the
// provenance of rig figures (measured live, replayed offline).
TEST_P(CliTest, ReplayOfALiveRecordingIsIdentical) {
  std::string scenario = write_scenario("quick.toml", "[latency]\niterations = 30\n[latency.expect]\np95_over_p50_max = 100\n");
  std::string bundle = (dir_ / "bundle").string();
  CommandResult live = harness({"--json", "run", scenario, "--db", db_, "--record", bundle});
  ASSERT_EQ(live.exit_code, 0) << live.err;
  CommandResult replay = harness({"--json", "replay", bundle, "--db", db_});
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  auto mask = [](nlohmann::json j) {
    for (const char* key : {"id", "uuid", "started_at", "ended_at", "origin", "context"}) j.erase(key);
    j["scenario"].erase("path");
    std::string text = j.dump(1);
    for (std::size_t at; (at = text.find("\"replayed\"")) != std::string::npos;) text.replace(at, 10, "\"measured\"");
    return text;
  };
  EXPECT_EQ(mask(nlohmann::json::parse(live.out)), mask(nlohmann::json::parse(replay.out)));

  std::string expect = (dir_ / "expect.json").string();
  EXPECT_EQ(harness({"replay", bundle, "--db", db_, "--write-expect", expect}).exit_code, 0);
  EXPECT_EQ(harness({"replay", bundle, "--db", db_, "--expect", expect}).exit_code, 0);
  // An expectation that differs in one figure: exit 1, naming it.
  nlohmann::json e = nlohmann::json::parse(std::ifstream(expect));
  for (auto& m : e["metrics"])
    if (m["name"] == "latency_p50") m["value"] = 1.0;
  std::ofstream(expect) << e.dump();
  CommandResult differs = harness({"replay", bundle, "--db", db_, "--expect", expect});
  EXPECT_EQ(differs.exit_code, 1);
  EXPECT_THAT(differs.err, HasSubstr("metric latency_p50: value "));
  EXPECT_THAT(differs.err, HasSubstr(" expected 1.0"));

  // export of the stored live run gives a bundle that replays the same way.
  std::string exported = (dir_ / "exported").string();
  CommandResult ex = harness({"export", "1", exported, "--db", db_});
  ASSERT_EQ(ex.exit_code, 0) << ex.err;
  CommandResult again = harness({"--json", "replay", exported, "--db", db_, "--no-store"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(mask(nlohmann::json::parse(live.out)), mask(nlohmann::json::parse(again.out)));
}

INSTANTIATE_TEST_SUITE_P(Engines, CliTest, ::testing::ValuesIn(testing_support::store_engines()),
                         [](const auto& info) { return testing_support::store_engine_name(info.param); });

}  // namespace
}  // namespace harness
