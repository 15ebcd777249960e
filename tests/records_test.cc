// End-to-end tests of issue 14, "trustworthy records": what the harness
// executable does with interrupted runs, concurrent first opens, hostile
// bundles and stored artifacts. Each hostile file is made by the test.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include <SQLiteCpp/SQLiteCpp.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "probes/process.h"

#include "tests/support/file_bytes.h"
#include "tests/support/run_harness.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/store_engine_test.h"

namespace harness {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// A started harness whose stderr is read until a line appears.
struct Started {
  pid_t pid = -1;
  int err_fd = -1;
  std::string err;

  bool wait_for(const std::string& text) {
    char buf[512];
    while (err.find(text) == std::string::npos) {
      ssize_t n = ::read(err_fd, buf, sizeof buf);
      if (n <= 0) return false;
      err.append(buf, static_cast<std::size_t>(n));
    }
    return true;
  }
  int wait() {
    int status = 0;
    ::waitpid(pid, &status, 0);
    char buf[512];
    for (ssize_t n; (n = ::read(err_fd, buf, sizeof buf)) > 0;) err.append(buf, static_cast<std::size_t>(n));
    ::close(err_fd);
    return status;
  }
};

Started start_harness(const std::vector<std::string>& args) {
  int err_pipe[2];
  if (::pipe(err_pipe) != 0) return {};
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(err_pipe[1], 2);
    int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::close(err_pipe[0]);
    testing_support::exec_harness(args);
  }
  ::close(err_pipe[1]);
  return {pid, err_pipe[0], ""};
}

using testing_support::file_bytes;

class RecordsTest : public testing_support::ScratchDirTest {
 protected:
  RecordsTest() : ScratchDirTest("harness-records") {}
  void SetUp() override {
    ScratchDirTest::SetUp();
    db_ = (dir_ / "runs.sqlite").string();
  }

  CommandResult harness(const std::vector<std::string>& args) { return testing_support::run_harness(args); }

  // A quick live run (level 4 on a small built-in kernel).
  std::string quick_scenario(const std::string& latency = "[latency]\niterations = 20\n") {
    std::string path = (dir_ / "quick.toml").string();
    std::ofstream(path) << "[scenario]\nname = \"quick\"\n[rig]\nname = \"test-rig\"\n[workload]\n"
                           "builtin = \"vector_add\"\nelements = 4096\n"
                        << latency;
    return path;
  }

  // The bundle shipped in fixtures/, copied so that the test may spoil it.
  fs::path copy_fixture(const std::string& name) {
    fs::path to = dir_ / "bundle";
    fs::copy(fs::path(HARNESS_SOURCE_DIR) / "fixtures" / name, to, fs::copy_options::recursive);
    return to;
  }

  std::string db_;
};

// ---- interrupted runs -------------------------------------------------

// On each store engine: a rig writing to a lab's PostgreSQL server is killed
// or interrupted as often as one writing to its own SQLite file.
class InterruptedRunTest : public testing_support::OnEachEngine<RecordsTest> {
 protected:
  nlohmann::json show(const std::string& id) {
    CommandResult r = harness({"--json", "show", id, "--db", db_});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out, nullptr, false);
  }
};

TEST_P(InterruptedRunTest, AKilledRunIsAbandonedAndCannotBeComparedOrABaseline) {
  ASSERT_EQ(harness({"run", quick_scenario(), "--db", db_, "--no-report"}).exit_code, 0);
  std::string slow = quick_scenario("[latency]\niterations = 100000000\nmin_duration = \"60 s\"\ntimeout = \"120 s\"\n");
  Started run = start_harness({"run", slow, "--db", db_, "--no-report"});
  ASSERT_TRUE(run.wait_for("level 4: latency")) << run.err;
  ASSERT_EQ(::kill(run.pid, SIGKILL), 0);
  int status = run.wait();
  ASSERT_TRUE(WIFSIGNALED(status));

  CommandResult runs = harness({"runs", "--db", db_});
  EXPECT_EQ(runs.exit_code, 0);
  EXPECT_THAT(runs.out, HasSubstr("abandoned"));
  CommandResult show = harness({"show", "2", "--db", db_});
  EXPECT_THAT(show.out, HasSubstr("abandoned"));
  EXPECT_THAT(show.out, HasSubstr("ended before the run finished: killed or crashed"));

  CommandResult compare = harness({"compare", "2", "--against", "1", "--db", db_});
  EXPECT_EQ(compare.exit_code, 2) << compare.out;
  EXPECT_THAT(compare.err, HasSubstr("harness: error: run 2 is abandoned ("));
  EXPECT_THAT(compare.err, HasSubstr("an unfinished run is neither compared nor compared against"));
  CommandResult against = harness({"compare", "1", "--against", "2", "--db", db_});
  EXPECT_EQ(against.exit_code, 2);
  EXPECT_THAT(against.err, HasSubstr("run 2 is abandoned"));
  CommandResult baseline = harness({"baseline", "set", "nightly", "2", "--db", db_});
  EXPECT_EQ(baseline.exit_code, 2);
  EXPECT_THAT(baseline.err, HasSubstr("run 2 is abandoned: only a completed run (passed or failed) can be a baseline"));
}

// A stop request ends an iteration of a command workload at once: the
// child's process group gets SIGTERM (here a 30 s sleep), the run is
// aborted with exit 3 instead of waiting for the iteration to end.
TEST_P(InterruptedRunTest, SigintInterruptsARunningCommandIteration) {
  std::string path = (dir_ / "sleepy.toml").string();
  std::ofstream(path) << "[scenario]\nname = \"sleepy\"\n[rig]\nname = \"test-rig\"\n[workload]\n"
                         "command = [\"/bin/sleep\", \"30\"]\n[latency]\niterations = 3\nwarmup = 0\n"
                         "timeout = \"60 s\"\n";
  Started run = start_harness({"run", path, "--db", db_, "--no-report"});
  ASSERT_TRUE(run.wait_for("level 4: latency")) << run.err;
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto sent = std::chrono::steady_clock::now();
  ASSERT_EQ(::kill(run.pid, SIGINT), 0);
  int status = run.wait();
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  ASSERT_TRUE(WIFEXITED(status)) << run.err;
  EXPECT_EQ(WEXITSTATUS(status), 3) << run.err;
  EXPECT_LT(waited, 20.0) << "the 30 s iteration was waited for";
  nlohmann::json run1 = show("1");
  EXPECT_EQ(run1["status"], "aborted");
  EXPECT_EQ(run1["reason"], "interrupted by SIGINT");
}

INSTANTIATE_TEST_SUITE_P(Engines, InterruptedRunTest, ::testing::ValuesIn(testing_support::store_engines()),
                         [](const auto& info) { return testing_support::store_engine_name(info.param); });


// ---- races and files --------------------------------------------------

// Four processes opening the same new store at once, ten times over: every
// run is stored (schema creation under an exclusive lock).
TEST_F(RecordsTest, ConcurrentFirstOpensOfAFreshStoreLoseNoRun) {
  const std::string bundle = (fs::path(HARNESS_SOURCE_DIR) / "fixtures/host/localhost-2026-11-29").string();
  int stored = 0, failed = 0;
  std::string errors;
  for (int round = 0; round < 10; ++round) {
    const std::string db = (dir_ / ("fresh-" + std::to_string(round) + ".sqlite")).string();
    std::vector<Started> all;
    for (int i = 0; i < 4; ++i) all.push_back(start_harness({"replay", bundle, "--db", db}));
    for (Started& s : all) {
      int status = s.wait();
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        ++failed;
        errors += s.err;
      }
    }
    SQLite::Database check(db);
    stored += check.execAndGet("SELECT count(*) FROM runs").getInt();
    EXPECT_EQ(check.execAndGet("PRAGMA integrity_check").getString(), "ok");
  }
  EXPECT_EQ(failed, 0) << errors;
  EXPECT_EQ(stored, 40) << errors;
}

TEST_F(RecordsTest, TwoStoresInOneFolderKeepTheirOwnReports) {
  std::string scenario = quick_scenario();
  const std::string a = (dir_ / "a.sqlite").string(), b = (dir_ / "b.sqlite").string();
  ASSERT_EQ(harness({"run", scenario, "--db", a}).exit_code, 0);
  ASSERT_EQ(harness({"run", scenario, "--db", b}).exit_code, 0);
  EXPECT_TRUE(fs::exists(dir_ / "a.sqlite.report-1.html"));
  EXPECT_TRUE(fs::exists(dir_ / "b.sqlite.report-1.html"));
  EXPECT_FALSE(fs::exists(dir_ / "harness-report-1.html"));
}

// ---- bounded inputs ---------------------------------------------------

TEST_F(RecordsTest, AnOversizedScenarioIsRefusedBeforeParsing) {
  std::string path = (dir_ / "big.toml").string();
  {
    std::ofstream out(path);
    out << "[scenario]\nname = \"big\"\n";
    std::string filler = "# " + std::string(1000, 'x') + "\n";
    for (int i = 0; i < 1100; ++i) out << filler;
  }
  CommandResult r = harness({"run", path, "--db", db_});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "harness: error: " + path + ": " + std::to_string(fs::file_size(path)) +
                       " bytes is more than the 1048576 allowed\n");
  EXPECT_FALSE(fs::exists(db_));  // refused before the store was opened
}

// ---- artifacts ----------------------------------------------------------

// A replayed run keeps its bundle's capture as an artifact, so that its
// export replays again; a stored artifact altered afterwards is refused.
TEST_F(RecordsTest, ExportOfAReplayedRunCarriesItsCaptureAndChecksIt) {
  const std::string day1 = (fs::path(HARNESS_SOURCE_DIR) / "fixtures/case-study/day1").string();
  CommandResult first = harness({"--json", "replay", day1, "--db", db_});
  ASSERT_TRUE(first.exit_code == 0 || first.exit_code == 1) << first.err;
  std::string stored;
  {
    SQLite::Database db(db_);
    stored = db.execAndGet("SELECT path FROM artifacts WHERE run_id = 1 AND name = 'ddr/capture.sr'").getString();
  }
  EXPECT_EQ(fs::path(stored).parent_path(), fs::absolute(dir_ / "runs.sqlite.artifacts"));
  EXPECT_EQ(file_bytes(stored), file_bytes(fs::path(day1) / "ddr/capture.sr"));

  const std::string exported = (dir_ / "exported").string();
  CommandResult ex = harness({"export", "1", exported, "--db", db_});
  ASSERT_EQ(ex.exit_code, 0) << ex.err;
  EXPECT_EQ(file_bytes(fs::path(exported) / "ddr/capture.sr"), file_bytes(fs::path(day1) / "ddr/capture.sr"));
  CommandResult again = harness({"--json", "replay", exported, "--db", db_, "--no-store"});
  EXPECT_EQ(again.exit_code, first.exit_code) << again.err;
  auto metrics = [](const std::string& out) { return nlohmann::json::parse(out)["metrics"].dump(); };
  EXPECT_EQ(metrics(again.out), metrics(first.out));

  fs::permissions(stored, fs::perms::owner_write, fs::perm_options::add);
  {
    std::fstream f(stored, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    f.put('\x5a');
  }
  CommandResult refused = harness({"export", "1", (dir_ / "again").string(), "--db", db_});
  EXPECT_EQ(refused.exit_code, 3);
  EXPECT_THAT(refused.err, HasSubstr("harness: error: artifact ddr/capture.sr of store " + db_ + ": " + stored));
  EXPECT_THAT(refused.err, HasSubstr("(altered since it was stored)"));
}

}  // namespace
}  // namespace harness
