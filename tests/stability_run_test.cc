// The rig stability gate end to end: `harness run` through a local agent,
// with a CPU hog (stress-ng on the workload's CPUs, one worker per CPU the
// workload may use) started by this test, outside the harness's process
// tree, in the middle of level 4's window. The level must read unstable and
// name the hog; `harness show` says so plainly.
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "probes/process.h"
#include "probes/workload/cpu_pinning.h"
#include "tests/support/run_harness.h"
#include "tests/support/scratch_dir.h"

namespace harness {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using nlohmann::json;
namespace fs = std::filesystem;

class StabilityRun : public testing_support::ScratchDirTest {
 protected:
  StabilityRun() : ScratchDirTest("harness-stability-run") {}
  void SetUp() override {
    if (!find_executable("stress-ng")) GTEST_SKIP() << "stress-ng is not installed (scripts/install-deps)";
    ScratchDirTest::SetUp();
  }

  CommandResult harness(const std::vector<std::string>& args) { return testing_support::run_harness(args); }
};

// The CPUs this process may use, as the workload (unpinned) may.
std::vector<int> workload_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  return cpus;
}

TEST_F(StabilityRun, AHogStartedInLevelFoursWindowMakesItUnstable) {
  const std::string marker = (dir_ / "iterated").string();
  const std::string scenario = (dir_ / "hog.toml").string();
  // A window of at least 3 s with readings every second; each iteration
  // leaves the marker, so this test knows when the window has begun.
  std::ofstream(scenario) << "[scenario]\nname = \"stability-hog\"\n[rig]\nname = \"loopback-board\"\n"
                             "transport = \"local\"\n[rig.stability]\ninterval = \"1 s\"\n"
                             "[workload]\ncommand = [\"sh\", \"-c\", \"sleep 0.02; : > " << marker << "\"]\n"
                             "[latency]\niterations = 10\nwarmup = 0\nmin_duration = \"3 s\"\n";
  const std::string db = (dir_ / "runs.sqlite").string(), bundle = (dir_ / "bundle").string();
  Result<std::unique_ptr<ChildProcess>> run =
      ChildProcess::start({HARNESS_BINARY, "--db", db, "run", "--no-report", "--record", bundle, scenario});
  ASSERT_TRUE(run) << run.error().message;
  for (int i = 0; i < 600 && !fs::exists(marker) && !(*run)->ended(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(fs::exists(marker)) << "the window never began: " << (*run)->output_tail();
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  // The hog: this test's child, a sibling of `harness run`, not in its tree.
  // Niced up where the test may (as root), so that on a machine already
  // busy it stands out among the others it shares the CPUs with.
  const std::vector<int> cpus = workload_cpus();
  Result<std::unique_ptr<ChildProcess>> hog =
      ChildProcess::start({"nice", "-n", "-5", "stress-ng", "--cpu", std::to_string(cpus.size()), "--taskset",
                           cpu_list_text(cpus), "--timeout", "120s"});
  ASSERT_TRUE(hog) << hog.error().message;
  std::optional<ChildEnd> ended = (*run)->wait_for(120);
  (*hog)->stop(1);
  ASSERT_TRUE(ended) << "harness run did not end";
  ASSERT_EQ(ended->exit_code, 0) << (*run)->output_tail();

  std::ifstream in(fs::path(bundle) / "recording.json");
  const json rec = json::parse(in);
  ASSERT_TRUE(rec.contains("stability")) << rec.dump(1).substr(0, 2000);
  const json& series = rec["stability"]["series"];
  ASSERT_EQ(series.size(), 1u) << series.dump(1);
  EXPECT_EQ(series[0]["level"], "latency");
  EXPECT_EQ(series[0]["condition"], "none");
  const json& readings = series[0]["readings"];
  ASSERT_GE(readings.size(), 3u) << readings.dump(1);
  EXPECT_EQ(readings.front()["at"], "before");
  EXPECT_EQ(readings.back()["at"], "after");
  EXPECT_EQ(readings[1]["at"], "during");
  bool hog_named = false;
  for (const json& r : readings)
    if (r["use"].contains("busiest"))
      for (const json& p : r["use"]["busiest"]) hog_named = hog_named || p["name"].get<std::string>().rfind("stress-ng", 0) == 0;
  EXPECT_TRUE(hog_named) << "no reading names the hog among the busiest others: " << readings.dump(1);

  CommandResult shown = harness({"--db", db, "--json", "show", "1"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  const json stored = json::parse(shown.out);
  std::string gate;
  for (const json& m : stored["metrics"])
    if (m["name"] == "stability.latency") gate = m.value("text", "");
  EXPECT_THAT(gate, StartsWith("unstable: ")) << shown.out.substr(0, 4000);
  CommandResult text = harness({"--db", db, "show", "1"});
  EXPECT_THAT(text.out, HasSubstr("  rig unstable: ")) << text.out;
}

}  // namespace
}  // namespace harness
