// harness headers first: <csignal> (through gtest) defines a si_value macro
// that clashes with a parameter name in harness/base/units.h.
#include "harness/levels/counters.h"
#include "harness/levels/latency.h"
#include "harness/runner/acquire.h"
#include "probes/process.h"

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace harness {
namespace {

const std::string kTools = HARNESS_SOURCE_DIR "/tests/tools/";

Scenario parse_or_die(const std::string& workload, const std::string& latency) {
  Result<Scenario> s = parse_scenario("[scenario]\nname = \"t\"\n[rig]\nname = \"r\"\n[workload]\n" + workload +
                                          "\n[latency]\n" + latency,
                                      "t.toml");
  EXPECT_TRUE(s) << s.error().message;
  return *s;
}

std::string stream_workload(int count, const std::string& after) {
  return "command = [\"" + kTools + "latency_stream.sh\", \"json\", \"" + std::to_string(count) + "\", \"" + after +
         "\"]\nlatency_field = \"latency_ms\"\nlatency_unit = \"ms\"\ntimeout = \"5 s\"";
}

Result<LatencyRecording> acquire(const Scenario& s) {
  MonotonicClock clock;
  std::stop_source stop;
  AcquireContext ctx{s, clock, stop.get_token(), {}};
  LatencyRecording rec;
  Status st = acquire_latency(ctx, rec);
  if (!st) return st.error();
  return rec;
}

// What acquiring `s` fails with ("" when it does not fail).
std::string acquire_error(const Scenario& s) {
  Result<LatencyRecording> rec = acquire(s);
  EXPECT_FALSE(rec);
  return rec ? "" : rec.error().message;
}

TEST(AcquireLatency, AScriptedWorkloadWithAKnownDistributionSkipsItsWarmup) {
  Scenario s = parse_or_die(stream_workload(110, "hang"), "iterations = 100\nwarmup = 10");
  Result<LatencyRecording> rec = acquire(s);
  ASSERT_TRUE(rec) << rec.error().message;
  ASSERT_EQ(rec->conditions.size(), 1u);
  const LatencyCondition& c = rec->conditions[0];
  ASSERT_EQ(c.latency_s.size(), 100u);
  EXPECT_DOUBLE_EQ(c.latency_s.front(), 11e-3);  // reports 1..10 were the warm-up
  EXPECT_DOUBLE_EQ(c.latency_s.back(), 110e-3);
  EXPECT_EQ(rec->source, "stream:" + kTools + "latency_stream.sh");
  Analysis a;
  analyse_latency(s, &*rec, Provenance::measured, a);
  EXPECT_NEAR(*a.find_metric("latency_p50")->value, 60.5e-3, 1e-12);
  EXPECT_NEAR(*a.find_metric("latency_p95")->value, 105.05e-3, 1e-12);
}

TEST(AcquireLatency, ReportsEachConditionAndItsIterationsAsTheyArrive) {
  Scenario s = parse_or_die(stream_workload(110, "hang"), "iterations = 100\nwarmup = 10");
  MonotonicClock clock;
  RecordedProgress progress;
  AcquireContext ctx{s, clock, {}, {}};
  ctx.progress = &progress;
  LatencyRecording rec;
  ASSERT_TRUE(acquire_latency(ctx, rec));
  const std::vector<ProgressEvent>& e = progress.events;
  ASSERT_GE(e.size(), 3u);
  EXPECT_EQ(e.front().kind, ProgressEvent::Kind::condition_started);
  EXPECT_EQ(e.front().text, "without load");
  EXPECT_EQ(e.front().condition_index, 1);
  EXPECT_EQ(e.front().condition_count, 1);
  EXPECT_EQ(e.front().planned, 100);
  EXPECT_EQ(e.front().done, 0);
  std::int64_t last = 0;
  for (std::size_t i = 1; i + 1 < e.size(); ++i) {
    EXPECT_EQ(e[i].kind, ProgressEvent::Kind::iterations);
    EXPECT_GT(e[i].done, last);  // each batch adds to the count
    EXPECT_EQ(e[i].samples, e[i].done);
    EXPECT_GE(e[i].elapsed_s, e[i - 1].elapsed_s);
    last = e[i].done;
  }
  EXPECT_EQ(last, 100);
  EXPECT_EQ(e.back().kind, ProgressEvent::Kind::condition_finished);
  EXPECT_EQ(e.back().done, 100);
  EXPECT_DOUBLE_EQ(e.back().measuring_s, rec.conditions[0].window_s);
}

// Level 2 in level 4's window with a same-run reference, on this host
// (a LocalDevice, real perf_event_open): each paired block opens a session
// of its own in its thread and reads it at its measured edges; the
// recording keeps every block's raw readings, which the analysis pairs by
// round.
TEST(AcquireLatency, CountersInAPairedWindowAreReadByEachBlocksOwnSession) {
  Result<Scenario> parsed = parse_scenario(
      "[scenario]\nname = \"paired\"\n[rig]\nname = \"r\"\n[workload]\nbuiltin = \"gemm\"\nm = 16\nn = 16\nk = 16\n"
      "[reference]\nbuiltin = \"gemm\"\nm = 24\nn = 24\nk = 24\nrounds = 3\norder = \"abba\"\n"
      "[counters]\ngroups = [\"linux-host\"]\niterations = 5\n[latency]\niterations = 12\nwarmup = 2\n",
      std::string(HARNESS_SOURCE_DIR) + "/scenarios/paired.toml");
  ASSERT_TRUE(parsed) << parsed.error().message;
  const Scenario& s = *parsed;
  MonotonicClock clock;
  AcquireContext ctx{s, clock, {}, {}};
  WindowHooks window;
  window.level = "latency";
  window.open = [] { return ok(); };
  window.close = [] { return ok(); };
  ctx.window = &window;
  CountersRecording counters;
  ctx.counters_in_window = &counters;
  LatencyRecording rec;
  Status st = acquire_latency(ctx, rec);
  ASSERT_TRUE(st) << st.error().message;
  EXPECT_EQ(counters.window, "latency");
  EXPECT_EQ(counters.window_condition, "none");
  EXPECT_EQ(counters.pairing, "ABBA order");
  EXPECT_TRUE(counters.readings.empty());
  // 3 rounds of a block of each side, ceil(12 / 3) = 4 measured iterations each.
  const LatencyCondition& c = rec.conditions.at(0);
  ASSERT_EQ(counters.blocks.size(), 6u);
  ASSERT_EQ(c.blocks.size(), 6u);
  EXPECT_EQ(counters.iterations, 24);
  for (std::size_t k = 0; k < 6; ++k) {
    const CounterBlock& b = counters.blocks[k];
    EXPECT_EQ(b.round, c.blocks[k].round);
    EXPECT_EQ(b.side, c.blocks[k].reference ? "reference" : "candidate");
    EXPECT_EQ(b.iterations, static_cast<std::int64_t>(c.blocks[k].count));
    EXPECT_EQ(b.iterations, 4);
  }
  auto task_clock = [](const CounterBlock& b) -> const CounterReading& {
    for (const CounterReading& r : b.readings)
      if (r.name == "TASK_CLOCK") return r;
    ADD_FAILURE() << "no TASK_CLOCK in a block";
    return b.readings.at(0);
  };
  const CounterReading& first = task_clock(counters.blocks[0]);
  if (!first.before) GTEST_SKIP() << "perf_event_open: " << first.unavailable;
  for (const CounterBlock& b : counters.blocks) {
    const CounterReading& r = task_clock(b);
    ASSERT_TRUE(r.before && r.after) << r.unavailable;
    EXPECT_GT(*r.after, *r.before);  // its own session counted its block
    EXPECT_TRUE(r.between.empty());
  }
  Analysis a;
  analyse_counters(s, &counters, Provenance::measured, a);
  ASSERT_TRUE(a.find_metric("counter.TASK_CLOCK") && a.find_metric("counter.TASK_CLOCK")->value);
  ASSERT_TRUE(a.find_metric("reference.counter.TASK_CLOCK")->value);
  ASSERT_TRUE(a.find_samples("vs_reference.counter.TASK_CLOCK"));
  EXPECT_EQ(a.find_samples("vs_reference.counter.TASK_CLOCK")->values.size(), 3u);
  // The reference's gemm does (24/16)^3 = 3.4 times the work: its task clock is higher.
  EXPECT_LT(*a.find_metric("vs_reference.counter.TASK_CLOCK")->value, 1.0);
}

TEST(AcquireLatency, ACrashAbortsTheRunAndKeepsTheSamplesTaken) {
  Scenario s = parse_or_die(stream_workload(5, "crash"), "iterations = 100\nwarmup = 2");
  MonotonicClock clock;
  std::stop_source stop;
  AcquireContext ctx{s, clock, stop.get_token(), {}};
  LatencyRecording rec;
  Status st = acquire_latency(ctx, rec);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, ExitCode::infrastructure);
  EXPECT_THAT(st.error().message,
              testing::StartsWith("workload " + kTools +
                                  "latency_stream.sh ended after reporting 5 iterations (killed by signal 11 "
                                  "(Segmentation fault)); last output: "));
  EXPECT_THAT(st.error().message, testing::EndsWith("fatal: device lost"));
  ASSERT_EQ(rec.conditions.size(), 1u);
  EXPECT_EQ(rec.conditions[0].latency_s.size(), 3u);  // 5 reported, 2 of them warm-up
}

TEST(AcquireLatency, AHangingCommandAbortsAtThePerIterationTimeout) {
  Scenario s = parse_or_die("command = [\"sleep\", \"10\"]\ntimeout = \"200 ms\"", "iterations = 3\nwarmup = 0");
  EXPECT_EQ(acquire_error(s),
            "workload sleep did not finish within the per-iteration timeout of 0.2 s and was killed; last output: "
            "(none)");
}

TEST(AcquireLatency, BothConditionsAreMeasuredAndTheLoadIsStopped) {
  if (!find_executable("stress-ng")) GTEST_SKIP() << "stress-ng is not installed (scripts/install-deps)";
  Scenario s = parse_or_die("builtin = \"vector_add\"\nelements = 1024",
                            "iterations = 50\nwarmup = 5\nload = [\"none\", \"stress-ng --cpu 1\"]\n"
                            // Long enough for stress-ng to start and install its SIGTERM
                            // handler on a busy machine (else it dies by the signal).
                            "load_settle = \"1 s\"");
  Result<LatencyRecording> rec = acquire(s);
  ASSERT_TRUE(rec) << rec.error().message;
  ASSERT_EQ(rec->conditions.size(), 2u);
  EXPECT_EQ(rec->conditions[0].name, "none");
  EXPECT_EQ(rec->conditions[0].load_end, "");
  EXPECT_EQ(rec->conditions[1].name, "stress-ng-cpu-1");
  EXPECT_THAT(rec->conditions[1].load, testing::ElementsAre("stress-ng", "--cpu", "1"));
  EXPECT_EQ(rec->conditions[1].latency_s.size(), 50u);
  // stress-ng ends on SIGTERM by itself, with status 0.
  EXPECT_EQ(rec->conditions[1].load_end, "exit status 0");
  EXPECT_THAT(rec->conditions[1].load_output, testing::HasSubstr("dispatching hogs: 1 cpu"));
}

TEST(AcquireLatency, ALoadThatDiesDuringTheWindowAbortsTheRun) {
  Scenario s = parse_or_die("builtin = \"vector_add\"\nelements = 1024",
                            "iterations = 10\nmin_duration = \"300 ms\"\nload = [[\"sh\", \"-c\", \"sleep 0.1; echo "
                            "oom; exit 137\"]]\nload_settle = \"0 s\"");
  EXPECT_EQ(acquire_error(s),
            "load \"sh -c sleep 0.1; echo oom; exit 137\" stopped during the measured window (exit status 137); last "
            "output: oom");
}

TEST(AcquireLatency, PowerFromAFakeHwmonTreeGivesEfficiency) {
  std::filesystem::path root =
      std::filesystem::temp_directory_path() / ("harness-l4-hwmon-" + std::to_string(::getpid()));
  std::filesystem::create_directories(root / "hwmon3");
  std::ofstream(root / "hwmon3" / "power1_input") << "12500000\n";  // 12.5 W
  Scenario s = parse_or_die("builtin = \"vector_add\"\nelements = 1024",
                            "iterations = 100\nmin_duration = \"50 ms\"\n[latency.power]\nsource = \"hwmon\"\n"
                            "interval = \"10 ms\"\nroot = \"" + root.string() + "\"");
  Result<LatencyRecording> rec = acquire(s);
  std::filesystem::remove_all(root);
  ASSERT_TRUE(rec) << rec.error().message;
  const PowerSeries& p = rec->conditions[0].power;
  EXPECT_EQ(p.source, "hwmon:" + root.string() + "/hwmon3/power1_input");
  EXPECT_GE(p.value.size(), 2u);  // the window's start and end at least
  Analysis a;
  analyse_latency(s, &*rec, Provenance::measured, a);
  EXPECT_DOUBLE_EQ(*a.find_metric("power_mean")->value, 12.5);
  EXPECT_DOUBLE_EQ(*a.find_metric("efficiency")->value, *a.find_metric("throughput")->value / 12.5);
}

TEST(AcquireLatency, PlanTimeChecksNameTheMissingProgram) {
  Scenario s = parse_or_die("builtin = \"vector_add\"\nelements = 16", "load = [\"none\", \"no-such-stress --cpu 1\"]");
  Status st = check_latency_plan(s);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message,
            "t.toml:9:17: [latency] load \"no-such-stress --cpu 1\": command 'no-such-stress': not found in PATH");
  EXPECT_EQ(st.error().code, ExitCode::bad_input);
  Scenario w = parse_or_die("command = [\"no-such-infer\"]", "iterations = 1");
  EXPECT_EQ(check_latency_plan(w).error().message, "workload: command 'no-such-infer': not found in PATH");
}

// The CLI end to end: a crashing workload is stored as an aborted run (exit
// 3) with its reason; a missing load program is bad input (exit 2).
class LatencyCli : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("harness-l4-cli-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  int run(const std::string& workload, const std::string& latency, std::string& out) {
    std::string path = (dir_ / "s.toml").string();
    std::ofstream(path) << "[scenario]\nname = \"t\"\n[rig]\nname = \"r\"\n[workload]\n" << workload
                        << "\n[latency]\n" << latency << "\n";
    std::string cmd = std::string(HARNESS_BINARY) + " --db " + (dir_ / "runs.sqlite").string() + " run " + path + " 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    char buf[4096];
    std::size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    int status = pclose(p);
    return WEXITSTATUS(status);
  }
  std::filesystem::path dir_;
};

TEST_F(LatencyCli, ACrashingWorkloadIsStoredAsAbortedWithItsReason) {
  std::string out;
  int code = run("command = [\"" + kTools + "crash_workload.sh\"]", "iterations = 5\nwarmup = 0", out);
  EXPECT_EQ(code, 3) << out;
  EXPECT_THAT(out, testing::HasSubstr("aborted"));
  EXPECT_THAT(out, testing::HasSubstr("crash_workload.sh killed by signal 11 (Segmentation fault); last output: "
                                      "loading model\nfatal: device lost"));
}

TEST_F(LatencyCli, AMissingLoadProgramIsBadInputBeforeAnythingRuns) {
  std::string out;
  int code = run("builtin = \"vector_add\"\nelements = 16", "load = [\"no-such-stress --cpu 1\"]", out);
  EXPECT_EQ(code, 2) << out;
  EXPECT_THAT(out, testing::HasSubstr("s.toml:9:9: [latency] load \"no-such-stress --cpu 1\": command "
                                      "'no-such-stress': not found in PATH"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "runs.sqlite") &&
               out.find("stored as run") != std::string::npos);
}

}  // namespace
}  // namespace harness
