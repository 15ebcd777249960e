// compare, baseline and history through the command line, in-process, on a
// store filled with synthetic runs (the real runs are in tests/compare_e2e_test.cc).
#include <filesystem>
#include <optional>
#include <fstream>
#include <cmath>
#include <random>
#include <sstream>

#include <unistd.h>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/cli/commands.h"
#include "harness/store/store.h"
#include "tests/support/run_cli.h"
#include "tests/support/store_engine_test.h"
#include "tests/support/store_engines.h"

namespace harness {
namespace {

const char* kScenario =
    "[scenario]\nname = \"npu\"\n[rig]\nname = \"lab-a\"\n[workload]\nbuiltin = \"gemm\"\nm = 8\nn = 8\nk = 8\n"
    "[latency]\niterations = 100\n";

// On each store engine (tests/support/store_engines.h): every command behaves
// the same on an SQLite file and on a PostgreSQL server.
class CompareCliTest : public testing_support::StoreEngineTest {
 protected:
  CompareCliTest() : StoreEngineTest("harness-cmp-cli") {}

  // A run whose latency samples have the given median.
  std::int64_t add(double median_s, const std::string& rig = "lab-a", std::uint64_t seed = 1,
                   const std::string& scenario = "npu") {
    return insert(record(median_s, rig, seed, scenario));
  }
  std::int64_t insert(const RunRecord& r) {
    Result<Store> store = Store::open(db_);
    EXPECT_TRUE(store) << store.error().message;
    Result<std::int64_t> id = store->insert_run(r);
    EXPECT_TRUE(id) << id.error().message;
    return id ? *id : 0;
  }
  RunRecord record(double median_s, const std::string& rig = "lab-a", std::uint64_t seed = 1,
                   const std::string& scenario = "npu") {
    RunRecord r;
    r.scenario_name = scenario;
    r.scenario_path = "npu.toml";
    r.scenario_text = kScenario;
    r.scenario_hash = "h";
    r.rig = rig;
    r.status = RunStatus::passed;
    r.started_at = "2026-11-29T00:00:00Z";
    std::mt19937_64 rng(seed);
    std::lognormal_distribution<double> d(std::log(median_s), 0.1);
    SampleSet s{Level::latency, "latency", "s", Provenance::measured, "builtin:gemm", Better::lower, {}};
    for (int i = 0; i < 200; ++i) s.values.push_back(d(rng));
    r.analysis.samples.push_back(s);
    Metric m;
    m.level = Level::latency;
    m.name = "latency_p50";
    m.unit = "s";
    m.value = median_s;
    m.better = Better::lower;
    r.analysis.metrics.push_back(m);
    return r;
  }

  // The rig's calibration: nights that spread by `sd` (log scale) for both
  // of a run's figures, so one baseline night can judge.
  void calibrate(double sd, const std::string& rig = "lab-a") {
    Result<Store> store = Store::open(db_);
    ASSERT_TRUE(store) << store.error().message;
    Calibration c;
    c.scenario_name = "npu";
    c.rig = rig;
    c.created_at = "2026-12-03T08:00:00Z";
    c.runs = {90, 91, 92, 93, 94, 95, 96, 97, 98, 99};
    c.comparisons = 12;
    c.false_alarms = 0;
    for (const char* name : {"latency", "latency_p50"}) c.metrics.push_back({name, "log", sd, 9, 0.05});
    ASSERT_TRUE(store->insert_calibration(c));
  }

  int cli(std::vector<std::string> args) {
    args.insert(args.begin(), {"--db", db_});
    std::ostringstream out, err;
    int code = testing_support::run_cli_in_process(args, out, err);
    out_ = out.str();
    err_ = err.str();
    return code;
  }

  std::string out_, err_;
};

TEST_P(CompareCliTest, BaselineSetListShow) {
  std::int64_t a = add(1e-3), b = add(1e-3, "lab-a", 2);
  ASSERT_EQ(cli({"baseline", "set", "nightly", std::to_string(a)}), 0) << err_;
  EXPECT_EQ(out_, "baseline 'nightly' of scenario 'npu' on rig 'lab-a' is now run 1\n");
  ASSERT_EQ(cli({"baseline", "set", "nightly", std::to_string(b)}), 0) << err_;
  EXPECT_EQ(out_, "baseline 'nightly' of scenario 'npu' on rig 'lab-a' is now run 2 (was run 1)\n");
  ASSERT_EQ(cli({"baseline", "list"}), 0) << err_;
  EXPECT_NE(out_.find("nightly  npu       lab-a      2  "), std::string::npos) << out_;
  ASSERT_EQ(cli({"baseline", "show", "nightly"}), 0) << err_;
  EXPECT_EQ(out_.rfind("baseline 'nightly' of scenario 'npu' on rig 'lab-a': run 2, set ", 0), 0u) << out_;
  EXPECT_EQ(cli({"baseline", "show", "weekly"}), 2);
  EXPECT_EQ(err_, "harness: error: no baseline named 'weekly' (see 'harness baseline list')\n");
  ASSERT_EQ(cli({"baseline", "list", "--json"}), 0) << err_;
  EXPECT_NE(out_.find("\"run\": 2"), std::string::npos);
}

TEST_P(CompareCliTest, ABaselineOfSeveralRunsIsJudgedByTheirSpread) {
  for (std::uint64_t i = 1; i <= 5; ++i) add(1e-3 * (1 + 0.06 * static_cast<double>(i % 3)), "lab-a", i);
  ASSERT_EQ(cli({"baseline", "set", "nightly", "5", "--last", "4"}), 0) << err_;
  EXPECT_EQ(out_, "baseline 'nightly' of scenario 'npu' on rig 'lab-a' is now runs 2, 3, 4, 5\n");
  ASSERT_EQ(cli({"--json", "baseline", "list"}), 0) << err_;
  EXPECT_EQ(nlohmann::json::parse(out_)[0]["runs"], nlohmann::json({2, 3, 4, 5}));
  // 11 % below the newest night: the U test is sure, but nights that spread
  // by 6 % cannot resolve the 3 % threshold: cannot tell, never unchanged.
  std::int64_t same = add(1.0e-3, "lab-a", 6), slow = add(2e-3, "lab-a", 7);
  EXPECT_EQ(cli({"compare", std::to_string(same), "--baseline", "nightly"}), 0) << out_;
  EXPECT_NE(out_.find("run 6 against baseline 'nightly' (runs 2, 3, 4, 5), scenario npu, rig lab-a"),
            std::string::npos)
      << out_;
  EXPECT_NE(out_.find("spread too wide for the ±3 % threshold: would detect ≥ "), std::string::npos) << out_;
  EXPECT_NE(out_.find("; 4 baseline nights' spread"), std::string::npos) << out_;
  EXPECT_NE(out_.find(" [decided by: spread]\n"), std::string::npos) << out_;
  EXPECT_EQ(cli({"--json", "compare", std::to_string(slow), "--baseline", "nightly"}), 1) << out_;
  nlohmann::json j = nlohmann::json::parse(out_);
  EXPECT_EQ(j["baseline"]["runs"], nlohmann::json({2, 3, 4, 5}));
  for (const auto& m : j["metrics"]) {
    if (m["name"] == "latency") {
      EXPECT_EQ(m["decided_by"], "significance") << m.dump();
    }
    if (m["name"] == "latency_p50") {
      EXPECT_EQ(m["verdict"], "regressed") << m.dump();
    }
  }
  EXPECT_EQ(cli({"baseline", "set", "nightly", "1", "2", "--last", "3"}), 2);
  EXPECT_EQ(err_, "harness: error: --last N takes one RUN: the newest run of the baseline\n");
}

// `--last N` takes good nights only, the newest given included: it skips a
// failed night, one with a verdict that could not tell, and one regressed
// against the nights before it, and says so.
TEST_P(CompareCliTest, BaselineLastTakesGoodNightsAndSaysWhichItSkipped) {
  calibrate(0.02);
  for (std::uint64_t i = 1; i <= 4; ++i) add(1e-3, "lab-a", i);
  add(2e-3, "lab-a", 5);
  RunRecord undecided = record(1e-3, "lab-a", 6);
  undecided.analysis.verdicts.push_back({Level::latency, "reference.latency_p50", "within ±5 % of the reference",
                                         "+4.0 % (cannot tell)", VerdictStatus::cannot_tell, "spread too wide"});
  insert(undecided);
  add(1e-3, "lab-a", 7);
  RunRecord failed = record(1e-3, "lab-a", 8);
  failed.status = RunStatus::failed;
  failed.reason = "a verdict failed";
  insert(failed);
  ASSERT_EQ(cli({"baseline", "set", "nightly", "8", "--last", "3"}), 0) << err_;
  EXPECT_EQ(out_,
            "baseline 'nightly' of scenario 'npu' on rig 'lab-a' is now runs 3, 4, 7\n"
            "  skipped run 8: failed: a verdict failed\n"
            "  skipped run 6: reference.latency_p50 cannot tell\n"
            "  skipped run 5: regressed against the nights before it: latency_p50 +99.9 %, latency +99.9 %\n");
  // Nothing good among them: an error naming why the newest is not.
  failed.rig = "lab-b";
  const std::int64_t lone = insert(failed);
  EXPECT_EQ(cli({"baseline", "set", "weekly", std::to_string(lone), "--last", "2"}), 2);
  EXPECT_EQ(err_, "harness: error: no good night for a baseline among the 1 completed live run up to run 9 (run 9: "
                  "failed: a verdict failed)\n");
}

TEST_P(CompareCliTest, AnAcknowledgedRegressionIsShownButDoesNotFail) {
  std::int64_t a = add(1e-3, "lab-a", 1), b = add(1.3e-3, "lab-a", 2);
  calibrate(0.02);
  ASSERT_EQ(cli({"baseline", "set", "nightly", std::to_string(a)}), 0) << err_;
  EXPECT_EQ(cli({"compare", std::to_string(b), "--baseline", "nightly"}), 1) << out_;
  ASSERT_EQ(cli({"baseline", "ack", "nightly", "latency", "--reason", "accepted: bigger model", "--by", "kai"}), 0)
      << err_;
  EXPECT_EQ(out_,
            "'latency' acknowledged against baseline 'nightly' of scenario 'npu' on rig 'lab-a' (run 1) by kai: "
            "accepted: bigger model; it holds until the baseline is set anew\n");
  ASSERT_EQ(cli({"baseline", "ack", "nightly", "latency_p50", "--reason", "same cause", "--by", "kai"}), 0) << err_;
  EXPECT_EQ(cli({"compare", std::to_string(b), "--baseline", "nightly", "--lava"}), 0) << out_;
  EXPECT_NE(out_.find("regressed (acknowledged)\n    acknowledged by kai at "), std::string::npos) << out_;
  EXPECT_NE(out_.find("result: no regression (2 regressed (2 acknowledged), "), std::string::npos) << out_;
  EXPECT_NE(out_.find("<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=compare.latency_p50 RESULT=skip "), std::string::npos) << out_;
  EXPECT_EQ(cli({"baseline", "ack", "weekly", "latency", "--reason", "x"}), 2);
  EXPECT_EQ(err_, "harness: error: no baseline named 'weekly' (see 'harness baseline list')\n");
}

TEST_P(CompareCliTest, OneNightCannotTellUntilTheRigIsCalibrated) {
  std::int64_t a = add(1e-3, "lab-a", 1), b = add(1e-3, "lab-a", 2);
  ASSERT_EQ(cli({"baseline", "set", "nightly", std::to_string(a)}), 0);
  EXPECT_EQ(cli({"compare", std::to_string(b), "--baseline", "nightly"}), 0) << err_ << out_;
  EXPECT_NE(out_.find("result: no regression (0 regressed, 0 improved, 0 unchanged, 2 cannot tell)"),
            std::string::npos)
      << out_;
  EXPECT_NE(out_.find("one baseline night cannot show how far this rig's nights spread"), std::string::npos) << out_;
  EXPECT_EQ(cli({"compare", std::to_string(b), "--baseline", "nightly", "--fail-on-unknown"}), 1) << out_;
  // With the rig's calibration the same two runs are unchanged, with what they could detect.
  calibrate(0.005);
  EXPECT_EQ(cli({"compare", std::to_string(b), "--baseline", "nightly", "--fail-on-unknown"}), 0) << err_ << out_;
  EXPECT_NE(out_.find("run 2 against baseline 'nightly' (run 1), scenario npu, rig lab-a"), std::string::npos);
  EXPECT_NE(out_.find("result: no regression (0 regressed, 0 improved, 2 unchanged, 0 cannot tell)"),
            std::string::npos)
      << out_;
  EXPECT_NE(out_.find("would detect ≥ "), std::string::npos) << out_;
  EXPECT_NE(out_.find("rig lab-a, calibrated 2026-12-03 (10 A/A nights): 0 of 12 comparisons with a false alarm; "
                      "detects ≥ 5.0 % on latency_p50 against one night"),
            std::string::npos)
      << out_;
  EXPECT_NE(out_.find("method: against baseline nights:"), std::string::npos) << out_;
  EXPECT_NE(out_.find("Holm step-down (family-wise error rate) over 2 tests at alpha 0.05"), std::string::npos);
}

TEST_P(CompareCliTest, RegressionExitsOneAndWritesJunitAndMarkdown) {
  std::int64_t a = add(1e-3, "lab-a", 1), b = add(1.2e-3, "lab-a", 2);
  calibrate(0.02);
  std::string junit = (dir_ / "cmp.xml").string(), md = (dir_ / "cmp.md").string();
  EXPECT_EQ(cli({"compare", std::to_string(b), "--against", std::to_string(a), "--junit", junit, "--markdown", md}),
            1)
      << err_;
  EXPECT_NE(out_.find("result: REGRESSED (2 regressed"), std::string::npos) << out_;
  std::ifstream j(junit), m(md);
  std::stringstream js, ms;
  js << j.rdbuf();
  ms << m.rdbuf();
  EXPECT_NE(js.str().find("<testsuite name=\"harness compare npu\" tests=\"2\" failures=\"2\" skipped=\"0\">"),
            std::string::npos)
      << js.str();
  EXPECT_NE(js.str().find("<testcase classname=\"compare.latency\" name=\"latency_p50\">\n      <failure "
                          "message=\"regressed: baseline 1 ms, new 1.2 ms (+20.0 %)"),
            std::string::npos)
      << js.str();
  EXPECT_EQ(ms.str().rfind("### harness compare: regression found\n", 0), 0u) << ms.str();
  EXPECT_NE(ms.str().find("| `latency_p50` | 1 ms | 1.2 ms | +200 us | +20.0 % | lower | ❌ **regressed** |"),
            std::string::npos)
      << ms.str();
  ASSERT_EQ(cli({"--json", "compare", std::to_string(b), "--against", std::to_string(a)}), 1);
  nlohmann::json out = nlohmann::json::parse(out_);
  EXPECT_EQ(out["method"]["correction"], "holm");
  EXPECT_EQ(out["summary"]["regressed"], 2);
  EXPECT_EQ(out["regressed"], true);
}

TEST_P(CompareCliTest, LavaPrintsOneTestCaseSignalPerVerdict) {
  std::int64_t a = add(1e-3, "lab-a", 1), b = add(1.2e-3, "lab-a", 2), c = add(1e-3, "lab-a", 3);
  EXPECT_EQ(cli({"compare", std::to_string(b), "--against", std::to_string(a), "--lava"}), 0) << err_;
  EXPECT_NE(out_.find("<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=compare.latency_p50 RESULT=unknown MEASUREMENT=0.0012 "),
            std::string::npos)
      << out_;
  calibrate(0.005);
  EXPECT_EQ(cli({"compare", std::to_string(b), "--against", std::to_string(a), "--lava"}), 1) << err_;
  EXPECT_NE(out_.find("\n<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=compare.latency_p50 RESULT=fail MEASUREMENT=0.0012 "
                      "UNITS=s>\n"),
            std::string::npos)
      << out_;
  EXPECT_NE(out_.find("<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=compare.latency RESULT=fail MEASUREMENT="), std::string::npos)
      << out_;
  EXPECT_NE(out_.find("<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=compare.run-2-vs-run-1 RESULT=fail>\n"), std::string::npos)
      << out_;
  EXPECT_EQ(cli({"compare", std::to_string(c), "--against", std::to_string(a), "--lava"}), 0) << err_;
  EXPECT_NE(out_.find("<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=compare.latency_p50 RESULT=pass MEASUREMENT=0.001 UNITS=s>"),
            std::string::npos)
      << out_;
  EXPECT_NE(out_.find("<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=compare.run-3-vs-run-1 RESULT=pass>\n"), std::string::npos)
      << out_;
}

TEST_P(CompareCliTest, AnotherRigsBaselineIsAnErrorUnlessAllowed) {
  std::int64_t a = add(1e-3, "lab-b"), b = add(1e-3, "lab-a", 2);
  ASSERT_EQ(cli({"baseline", "set", "nightly", std::to_string(a)}), 0);
  EXPECT_EQ(cli({"compare", std::to_string(b), "--baseline", "nightly"}), 2);
  EXPECT_EQ(err_,
            "harness: error: baseline 'nightly' (run 1) does not match run 2: rig ('lab-b' vs 'lab-a') differ; "
            "pass --allow-mismatch to compare anyway\n");
  EXPECT_EQ(cli({"compare", std::to_string(b), "--against", std::to_string(a)}), 2);
  EXPECT_EQ(err_,
            "harness: error: run 1 does not match run 2: rig ('lab-b' vs 'lab-a') differ; pass --allow-mismatch "
            "to compare anyway\n");
  EXPECT_EQ(cli({"compare", std::to_string(b), "--baseline", "nightly", "--allow-mismatch"}), 0) << err_;
  EXPECT_NE(out_.find("note: --allow-mismatch: baseline and run differ in rig ('lab-b' vs 'lab-a')"),
            std::string::npos);
}

TEST_P(CompareCliTest, BadInputExitsTwo) {
  std::int64_t a = add(1e-3);
  EXPECT_EQ(cli({"compare", "42", "--against", std::to_string(a)}), 2);
  EXPECT_NE(err_.find(": no run with id 42\n"), std::string::npos) << err_;
  EXPECT_EQ(cli({"compare", std::to_string(a), "--baseline", "nope"}), 2);
  EXPECT_EQ(err_, "harness: error: no baseline named 'nope' (see 'harness baseline list')\n");
  EXPECT_EQ(cli({"compare", std::to_string(a)}), 2);
  EXPECT_EQ(err_, "harness: error: run 1 has no baseline of scenario 'npu' on rig 'lab-a' and no earlier completed "
                  "live run to be judged against: --baseline NAME or --against RUN\n");
}

TEST_P(CompareCliTest, HistoryListsAMetricAndMarksTheShift) {
  for (int i = 0; i < 8; ++i) add(1e-3 * (1 + 0.002 * (i % 3)), "lab-a", static_cast<std::uint64_t>(i));
  for (int i = 0; i < 8; ++i) add(1.3e-3 * (1 + 0.002 * (i % 3)), "lab-a", static_cast<std::uint64_t>(i));
  ASSERT_EQ(cli({"history", "--metric", "latency_p50", "--changes"}), 0) << err_;
  EXPECT_EQ(out_.rfind("latency_p50 (s) across 16 runs\n", 0), 0u) << out_;
  EXPECT_NE(out_.find("<- level shift 1.002 ms -> 1.302 ms (+30.0 %)"), std::string::npos) << out_;
  EXPECT_NE(out_.find("\n1 level shift found; method: penalised step fit for changes in mean (optimal partitioning with "
                          "functional pruning, exact, up to 20000 runs"), std::string::npos);
  ASSERT_EQ(cli({"history", "--changes"}), 0) << err_;
  EXPECT_NE(out_.find("latency_p50  s             16         16        16  run 9: level shift"), std::string::npos)
      << out_;
  EXPECT_EQ(cli({"history", "--metric", "latency_p05"}), 2);
  EXPECT_EQ(err_, "harness: error: no stored run has a metric 'latency_p05'; did you mean 'latency_p50'?\n");
  // The newest night, judged as compare judges it: against the nights before it.
  ASSERT_EQ(cli({"history", "--metric", "latency_p50", "--changes"}), 0) << err_;
  EXPECT_NE(out_.find("newest night of scenario npu on rig lab-a, run 16: "), std::string::npos) << out_;
  ASSERT_EQ(cli({"compare", "16"}), 0) << err_;
  EXPECT_NE(out_.find("note: no baseline named: against the 15 nights before it (runs 1, 2,"), std::string::npos)
      << out_;
}

// Nights of an A/A series that drift in phases (seen on the shared VM: 555
// then 485 us with nothing changed) are no level shift once the rig's
// calibration says its nights spread that much.
TEST_P(CompareCliTest, HistoryMarksNoLevelShiftInsideTheRigsCalibratedSpread) {
  for (int i = 0; i < 6; ++i) add(555e-6 * (1 + 0.002 * (i % 3)), "lab-a", static_cast<std::uint64_t>(i));
  for (int i = 0; i < 6; ++i) add(485e-6 * (1 + 0.002 * (i % 3)), "lab-a", static_cast<std::uint64_t>(i + 6));
  ASSERT_EQ(cli({"history", "--metric", "latency_p50", "--changes"}), 0) << err_;
  EXPECT_NE(out_.find("\n1 level shift found;"), std::string::npos) << out_;
  calibrate(0.1);
  ASSERT_EQ(cli({"history", "--metric", "latency_p50", "--changes"}), 0) << err_;
  EXPECT_NE(out_.find("\n0 level shifts found;"), std::string::npos) << out_;
}

// The table pads by hand for ASCII; a rig named in another script still gets
// the columns fmt would give it (one column per character, two for wide ones).
TEST_P(CompareCliTest, HistoryColumnsLineUpForNamesBeyondAscii) {
  add(1e-3, "стенд-1");
  add(1e-3, "实验室");
  ASSERT_EQ(cli({"history", "--metric", "latency_p50", "--all-rigs"}), 0) << err_;
  EXPECT_NE(out_.find(fmt::format("  npu               {:<16}  live              1 ms  measured\n", "стенд-1")),
            std::string::npos)
      << out_;
  EXPECT_NE(out_.find("  npu               实验室            live              1 ms  measured\n"), std::string::npos)
      << out_;
}

TEST_P(CompareCliTest, HistoryNeverMixesRigsUnlessAsked) {
  for (int i = 0; i < 3; ++i) add(1e-3, "lab-a", static_cast<std::uint64_t>(i));
  add(2e-3, "lab-b", 7);
  EXPECT_EQ(cli({"history", "--metric", "latency_p50"}), 2);
  EXPECT_EQ(err_, "harness: error: metric 'latency_p50' comes from 2 rigs (lab-a, lab-b): history does not mix rigs "
                  "unless asked; pick one with --rig NAME, or list them together with --all-rigs\n");
  ASSERT_EQ(cli({"history", "--metric", "latency_p50", "--rig", "lab-b"}), 0) << err_;
  EXPECT_EQ(out_.rfind("latency_p50 (s) across 1 runs\n", 0), 0u) << out_;
  ASSERT_EQ(cli({"history", "--metric", "latency_p50", "--all-rigs"}), 0) << err_;
  EXPECT_EQ(out_.rfind("latency_p50 (s) across 4 runs\n", 0), 0u) << out_;
}

// Replayed nights carry measured evidence (provenance replayed) and take part
// in the change points; a replay of a night already stored does not count twice.
TEST_P(CompareCliTest, HistoryChangePointsUseReplayedNightsOnce) {
  Result<Store> store = Store::open(db_);
  ASSERT_TRUE(store) << store.error().message;
  auto night = [&](int day, double value, const std::string& origin) {
    RunRecord r;
    r.scenario_name = "npu";
    r.scenario_path = "npu.toml";
    r.rig = "lab-a";
    r.origin = origin;
    r.status = RunStatus::passed;
    r.started_at = fmt::format("2026-11-{:02}T00:00:00Z", day);
    Metric m;
    m.level = Level::latency;
    m.name = "latency_p50";
    m.unit = "s";
    m.value = value * (1 + 0.002 * (day % 3));
    m.provenance = origin == "live" ? Provenance::measured : Provenance::replayed;
    m.better = Better::lower;
    r.analysis.metrics.push_back(m);
    Result<std::int64_t> id = store->insert_run(r);
    EXPECT_TRUE(id) << id.error().message;
    return id ? *id : 0;
  };
  for (int day = 1; day <= 8; ++day) night(day, 1e-3, "live");
  night(8, 1.3e-3, "replay");  // night 8 again: a repeat, not a ninth night
  std::int64_t first_replayed = 0;
  for (int day = 9; day <= 16; ++day) {
    std::int64_t id = night(day, 1.3e-3, "replay");
    if (!first_replayed) first_replayed = id;
  }
  ASSERT_EQ(cli({"--json", "history", "--metric", "latency_p50", "--changes"}), 0) << err_;
  nlohmann::json j = nlohmann::json::parse(out_);
  ASSERT_EQ(j["changes"].size(), 1u) << out_;
  EXPECT_EQ(j["changes"][0]["run"], first_replayed);
}

TEST_P(CompareCliTest, AnotherRigsBaselineWhenAskedWithRig) {
  std::int64_t a = add(1e-3, "lab-b"), b = add(1e-3, "lab-a", 2);
  ASSERT_EQ(cli({"baseline", "set", "nightly", std::to_string(a)}), 0);
  ASSERT_EQ(cli({"compare", std::to_string(b), "--baseline", "nightly", "--rig", "lab-b"}), 0) << err_;
  EXPECT_NE(out_.find("--rig: against the baseline of rig 'lab-b'; run 2 is on rig 'lab-a'"), std::string::npos)
      << out_;
  EXPECT_EQ(cli({"compare", std::to_string(b), "--baseline", "nightly", "--rig", "lab-c"}), 2);
  EXPECT_EQ(err_, "harness: error: baseline 'nightly' has no run of scenario 'npu' on rig 'lab-c' (see 'harness "
                  "baseline list')\n");
  ASSERT_EQ(cli({"compare", std::to_string(b), "--against", std::to_string(a), "--allow-mismatch", "--all-rigs"}), 0)
      << err_;
  EXPECT_NE(out_.find("--all-rigs: the history noise band draws on the scenario's runs on every rig"),
            std::string::npos)
      << out_;
}

INSTANTIATE_TEST_SUITE_P(Engines, CompareCliTest, ::testing::ValuesIn(testing_support::store_engines()),
                         [](const auto& info) { return testing_support::store_engine_name(info.param); });

}  // namespace
}  // namespace harness
