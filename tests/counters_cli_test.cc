// Level 2 through the command line: `harness run` on the example NPU rig's
// group, with its stats file replaced by a fake debugfs file that the
// workload command advances, as the driver would while the NPU works.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "probes/process.h"
#include "tests/support/scratch_dir.h"

namespace harness {
namespace {

class CountersCli : public testing_support::ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    std::ofstream(dir_ / "pmu_stats") << "cycles: 0\nmem_stall_cycles: 0\nl2_miss_cycles: 0\nalu_stall_cycles: 0\n"
                                         "l2_access: 0\nl2_miss: 0\nddr_rd_lines: 0\nddr_wr_lines: 0\n";
  }
  // Each workload iteration adds `stall` memory-stall cycles per 1000 cycles.
  std::string scenario(int stall) {
    std::string stats = (dir_ / "pmu_stats").string();
    std::string step =
        "awk -F': ' -v OFS=': ' '{ d = 0; if ($1 == \"cycles\") d = 1000; if ($1 == \"mem_stall_cycles\") d = " +
        std::to_string(stall) + "; if ($1 == \"ddr_rd_lines\") d = 10; $2 = $2 + d; print }' " + stats + " > " +
        stats + ".tmp && mv " + stats + ".tmp " + stats;
    nlohmann::json argv = {"sh", "-c", step};
    std::string path = (dir_ / "rig.toml").string();
    std::ofstream(path) << "[scenario]\nname = \"npu-fake\"\n[rig]\nname = \"fake-npu\"\n[workload]\ncommand = "
                        << argv.dump() << "\n[counters]\ngroups = [\"npu-driver-stats\"]\niterations = 4\n"
                        << "[counters.sources.npu_stats]\npath = \"" << stats << "\"\n"
                        << "[counters.expect]\nmem_stall_ratio_max = 0.6\n";
    return path;
  }

  Result<CommandResult> harness(const std::string& scenario_path) {
    return run_command({HARNESS_BINARY, "--db", (dir_ / "runs.sqlite").string(), "--json", "run", scenario_path},
                       {.timeout_s = 60});
  }
  // The run's JSON output (null when it did not end with `exit_code`).
  nlohmann::json run_json(const std::string& scenario_path, int exit_code) {
    Result<CommandResult> r = harness(scenario_path);
    EXPECT_TRUE(r) << r.error().message;
    if (!r) return nullptr;
    EXPECT_EQ(r->exit_code, exit_code) << r->out << r->err;
    return r->exit_code == exit_code ? nlohmann::json::parse(r->out) : nullptr;
  }
};

const nlohmann::json* find_named(const nlohmann::json& list, const std::string& key, const std::string& name) {
  for (const nlohmann::json& e : list)
    if (e.value(key, "") == name) return &e;
  return nullptr;
}

TEST_F(CountersCli, ARunPassesWhenTheStallRatioIsLowAndReportsTheBytes) {
  nlohmann::json j = run_json(scenario(400), 0);
  const nlohmann::json* ratio = find_named(j["metrics"], "name", "counter.mem_stall_ratio");
  ASSERT_TRUE(ratio);
  EXPECT_DOUBLE_EQ((*ratio)["value"].get<double>(), 0.4);
  const nlohmann::json* bytes = find_named(j["metrics"], "name", "counter.bytes");
  ASSERT_TRUE(bytes);
  EXPECT_EQ((*bytes)["value"].get<double>(), 4 * 10 * 64);
  EXPECT_EQ((*bytes)["unit"], "B");
  EXPECT_EQ((*bytes)["provenance"], "measured");
  const nlohmann::json* v = find_named(j["verdicts"], "check", "counters.expect.mem_stall_ratio_max");
  ASSERT_TRUE(v);
  EXPECT_EQ((*v)["status"], "pass");
}

TEST_F(CountersCli, ARunFailsWhenTheStallRatioIsHigh) {
  nlohmann::json j = run_json(scenario(870), 1);
  const nlohmann::json* v = find_named(j["verdicts"], "check", "counters.expect.mem_stall_ratio_max");
  ASSERT_TRUE(v);
  EXPECT_EQ((*v)["status"], "fail");
  EXPECT_EQ((*v)["measured"], "0.87");
}

TEST_F(CountersCli, AnUnknownGroupIsBadInputNamingTheFile) {
  std::string path = (dir_ / "bad.toml").string();
  std::ofstream(path) << "[scenario]\nname = \"x\"\n[rig]\nname = \"r\"\n[workload]\ncommand = [\"true\"]\n"
                         "[counters]\ngroups = [\"npu-driver-stat\"]\n";
  Result<CommandResult> r = harness(path);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->exit_code, 2);
  EXPECT_NE(r->err.find(path + ":8:11: [counters] groups: no counter group \"npu-driver-stat\""), std::string::npos)
      << r->err;
  EXPECT_NE(r->err.find("did you mean \"npu-driver-stats\"?"), std::string::npos) << r->err;
}

// As an unprivileged user (perf_event_paranoid 2) the kernel lets perf count
// user space only: task-clock says so in its source, and context-switches,
// which happen only in the kernel, are refused rather than read as 0.
TEST_F(CountersCli, AnUnprivilegedUserGetsUserSpaceCountsAndNoFalseZeros) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to drop to an unprivileged user";
  Result<std::string> setpriv = find_executable("setpriv");
  if (!setpriv) GTEST_SKIP() << setpriv.error().message;
  std::ifstream paranoid("/proc/sys/kernel/perf_event_paranoid");
  int level = -1;
  paranoid >> level;
  if (level < 2) GTEST_SKIP() << "perf_event_paranoid is " << level << ": users may count the kernel";
  std::filesystem::permissions(dir_, std::filesystem::perms::all);
  std::string path = (dir_ / "user.toml").string();
  std::ofstream(path) << "[scenario]\nname = \"user\"\n[rig]\nname = \"r\"\n[workload]\nbuiltin = \"vector_add\"\n"
                         "elements = 100000\n[counters]\ngroups = [\"linux-host\"]\niterations = 5\n";
  Result<CommandResult> r =
      run_command({*setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", HARNESS_BINARY, "--db",
                   (dir_ / "user.sqlite").string(), "--json", "run", path},
                  {.timeout_s = 60});
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->exit_code, 0) << r->out << r->err;
  nlohmann::json j = nlohmann::json::parse(r->out);
  const nlohmann::json* clock = find_named(j["metrics"], "name", "counter.TASK_CLOCK");
  ASSERT_TRUE(clock);
  EXPECT_GT((*clock)["value"].get<double>(), 0);
  EXPECT_EQ((*clock)["source"], "perf_event:perf (user space only): after - before, x 1e-09");
  const nlohmann::json* switches = find_named(j["metrics"], "name", "counter.CONTEXT_SWITCHES");
  ASSERT_TRUE(switches);
  EXPECT_TRUE((*switches)["value"].is_null());
  EXPECT_EQ((*switches)["unavailable"],
            "the kernel refused perf event 'context-switches': Permission denied (EACCES); it happens only in the "
            "kernel, which this user may not count (perf_event_paranoid), so user-space counting would always "
            "read 0");
}

}  // namespace
}  // namespace harness
