// End to end through the built executable: real runs of a small built-in
// kernel on this host with a same-run reference, stored, judged against the
// reference and against nights, and a calibration of the rig. The paired
// threshold is wide because this host is shared (see scenarios/README.md
// "Comparing runs"); the injected slowdown (3x the work) is beyond it.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
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

# The stability gate has its own tests (tests/stability_run_test.cc); here it
# would make every verdict "cannot tell" whenever other tests share the CPUs.
[rig.stability]
enabled = false

[workload]
builtin = "gemm"
m = 64
n = 64
k = 64
%SLOWDOWN%

[reference]
builtin = "gemm"
m = 64
n = 64
k = 64
rounds = 10

[latency]
iterations = 200
warmup = 10

# This development host is shared by several builds: a block of 20
# iterations can run twice as slow as the next one while others compile.
[compare]
paired_threshold = 0.3
)toml";

struct Ran {
  int code = -1;
  std::string out;
};

// Standard output, and the progress on standard error too unless the output is JSON.
Ran harness(const fs::path& db, const std::string& args) {
  const bool json = args.rfind("--json", 0) == 0;
  std::string cmd = std::string(HARNESS_BINARY) + " --db '" + db.string() + "' " + args + (json ? " 2>/dev/null" : " 2>&1");
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

std::map<std::string, nlohmann::json> verdicts_of(const std::string& run_json) {
  std::map<std::string, nlohmann::json> out;
  const nlohmann::json run = nlohmann::json::parse(run_json);
  for (const auto& v : run["verdicts"]) out[v["check"]] = v;
  return out;
}

TEST(CompareEndToEnd, ARunIsJudgedAgainstItsReferenceAndNightsNeedTheirSpread) {
  fs::path dir = fs::temp_directory_path() / ("harness-cmp-e2e-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::path db = dir / "runs.sqlite";
  std::string same = write_scenario(dir, "same.toml", "");
  std::string slow = write_scenario(dir, "slow.toml", "slowdown = 3");

  // A/A: the reference is the same kernel; nothing is flagged.
  Ran r1 = harness(db, "--json run --no-report '" + same + "'");
  ASSERT_EQ(r1.code, 0) << r1.out;
  std::map<std::string, nlohmann::json> v = verdicts_of(r1.out);
  ASSERT_TRUE(v.count("reference.latency_p50")) << r1.out;
  EXPECT_NE(v["reference.latency_p50"]["status"], "fail") << v["reference.latency_p50"].dump();
  EXPECT_NE(v["reference.latency_p50"]["detail"].get<std::string>().find("10 paired rounds"), std::string::npos);
  // The candidate doing 3x the work of its reference: regressed, the run fails.
  Ran r2 = harness(db, "--json run --no-report '" + slow + "'");
  ASSERT_EQ(r2.code, 1) << r2.out;
  v = verdicts_of(r2.out);
  EXPECT_EQ(v["reference.latency_p50"]["status"], "fail") << v["reference.latency_p50"].dump();
  EXPECT_NE(v["reference.latency_p50"]["measured"].get<std::string>().find("(regressed)"), std::string::npos);

  // compare of run 2 against run 1 alone: against its reference it regressed;
  // against one night it cannot tell (the spread between nights is unknown).
  Ran c = harness(db, "--json compare 2 --against 1");
  ASSERT_EQ(c.code, 1) << c.out;
  nlohmann::json j = nlohmann::json::parse(c.out);
  std::map<std::string, nlohmann::json> rows;
  for (const auto& m : j["metrics"]) rows[m["name"]] = m;
  EXPECT_EQ(rows["latency_p50"]["verdict"], "cannot tell") << rows["latency_p50"].dump();
  EXPECT_EQ(rows["latency_p50"]["decided_by"], "spread unknown");
  ASSERT_TRUE(j.contains("reference")) << c.out;
  for (const auto& m : j["reference"]["metrics"])
    if (m["name"] == "latency_p50") {
      EXPECT_EQ(m["verdict"], "regressed") << m.dump();
    }

  // A calibration of the rig: A/A nights, their spread and false alarms.
  Ran cal = harness(db, "calibrate '" + same + "' --nights 3 --quiet");
  ASSERT_EQ(cal.code, 0) << cal.out;
  EXPECT_NE(cal.out.find("rig localhost, calibrated "), std::string::npos) << cal.out;
  EXPECT_NE(cal.out.find("(3 A/A nights)"), std::string::npos) << cal.out;
  EXPECT_NE(cal.out.find("stored as calibration 1 of scenario 'compare-e2e' on rig 'localhost'"), std::string::npos)
      << cal.out;
  // Now one baseline night has the rig's spread: run 2 is judged against night 1.
  c = harness(db, "compare 2 --against 1");
  EXPECT_NE(c.out.find("the spread of the rig's calibration of "), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("rig localhost, calibrated "), std::string::npos) << c.out;

  Ran hist = harness(db, "history --metric vs_reference.latency_p50 --changes");
  EXPECT_EQ(hist.code, 0) << hist.out;
  EXPECT_NE(hist.out.find("vs_reference.latency_p50 (1) across 5 runs"), std::string::npos) << hist.out;
  EXPECT_NE(hist.out.find("newest night of scenario compare-e2e on rig localhost, run 5: "), std::string::npos)
      << hist.out;
  fs::remove_all(dir);
}

}  // namespace
