// End to end through the built executable: real runs of a small built-in
// kernel on this host, stored, named, compared. The thresholds in the
// scenario are wide because this host is shared (see scenarios/README.md
// "Comparing runs"); the injected slowdown (10x the work) is beyond them for
// the median and the whole sample set, which is what the test asserts.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

namespace {

namespace fs = std::filesystem;

const char* kScenario = R"toml([scenario]
name = "compare-e2e"

[rig]
name = "localhost"

[workload]
builtin = "gemm"
m = 64
n = 64
k = 64
%SLOWDOWN%

[latency]
iterations = 300
warmup = 20

# This development host is shared by several builds (load average 11 on 2
# vCPUs while this was written): between back-to-back runs the median of this
# kernel moved between 34 and 68 us, the tail and the maximum by more. A
# rig's scenario would be far tighter.
# Since the workload runs in a child agent process (the rig's local
# transport), the median of back-to-back runs here also jumped between two
# modes, 50 and 106 us (+110 %), in about one pair of runs in five: the A/A
# band is 150 %, still far below the 10x slowdown below (issue 15 is about
# judging runs by the spread between runs rather than a fixed band).
[compare]
default_threshold = 0.8
sample_threshold = 1.5
metric_threshold = { latency_p95 = 2.0, latency_p95_over_p50 = 2.0 }
ignore = ["latency_max"]       # one scheduler stall of 10 ms decides it
)toml";

struct Ran {
  int code = -1;
  std::string out;
};

Ran harness(const fs::path& db, const std::string& args) {
  std::string cmd = std::string(HARNESS_BINARY) + " --db '" + db.string() + "' " + args + " 2>&1";
  Ran r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string write_scenario(const fs::path& dir, const std::string& name, const std::string& slowdown) {
  std::string text = kScenario;
  text.replace(text.find("%SLOWDOWN%"), 10, slowdown);
  fs::path path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

TEST(CompareEndToEnd, SameKernelIsUnchangedAndASlowdownRegresses) {
  fs::path dir = fs::temp_directory_path() / ("harness-cmp-e2e-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::path db = dir / "runs.sqlite";
  std::string same = write_scenario(dir, "same.toml", "");
  // 10x the work: the slowdown must stand clear of this host's run-to-run
  // spread (above); 1.5x does not, reliably, here.
  std::string slow = write_scenario(dir, "slow.toml", "slowdown = 10");

  Ran r1 = harness(db, "run '" + same + "'");
  ASSERT_EQ(r1.code, 0) << r1.out;
  Ran r2 = harness(db, "run '" + same + "'");
  ASSERT_EQ(r2.code, 0) << r2.out;
  Ran r3 = harness(db, "run '" + slow + "'");
  ASSERT_EQ(r3.code, 0) << r3.out;

  Ran set = harness(db, "baseline set nightly 1");
  ASSERT_EQ(set.code, 0) << set.out;
  EXPECT_EQ(set.out, "baseline 'nightly' of scenario 'compare-e2e' on rig 'localhost' is now run 1\n");

  Ran aa = harness(db, "--json compare 2 --baseline nightly");
  ASSERT_EQ(aa.code, 0) << aa.out;
  nlohmann::json j = nlohmann::json::parse(aa.out);
  EXPECT_EQ(j["summary"]["regressed"], 0);
  std::map<std::string, std::string> verdict;
  for (const auto& m : j["metrics"]) verdict[m["name"]] = m["verdict"];
  EXPECT_EQ(verdict["latency_p50"], "unchanged");
  EXPECT_EQ(verdict["latency"], "unchanged");
  EXPECT_GT(j["summary"]["unchanged"].get<int>(), j["summary"]["regressed"].get<int>() +
                                                      j["summary"]["improved"].get<int>() +
                                                      j["summary"]["changed"].get<int>());

  fs::path junit = dir / "slow.xml";
  Ran ab = harness(db, "compare 3 --baseline nightly --junit '" + junit.string() + "'");
  EXPECT_EQ(ab.code, 1) << ab.out;
  EXPECT_NE(ab.out.find("note: the scenario text differs between run 1 and run 3"), std::string::npos) << ab.out;
  EXPECT_NE(ab.out.find("result: REGRESSED"), std::string::npos) << ab.out;
  Ran abj = harness(db, "--json compare 3 --baseline nightly");
  j = nlohmann::json::parse(abj.out);
  verdict.clear();
  for (const auto& m : j["metrics"]) verdict[m["name"]] = m["verdict"];
  EXPECT_EQ(verdict["latency"], "regressed");
  EXPECT_EQ(verdict["latency_p50"], "regressed");
  std::ifstream x(junit);
  std::stringstream xs;
  xs << x.rdbuf();
  EXPECT_NE(xs.str().find("name=\"latency_p50\">\n      <failure message=\"regressed:"), std::string::npos) << xs.str();

  Ran hist = harness(db, "history --metric latency_p50");
  EXPECT_EQ(hist.code, 0) << hist.out;
  EXPECT_NE(hist.out.find("latency_p50 (s) across 3 runs"), std::string::npos) << hist.out;
  fs::remove_all(dir);
}

}  // namespace
