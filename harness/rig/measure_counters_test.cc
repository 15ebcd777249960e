// The harness headers come first: units.h declares a parameter named
// si_value, which <signal.h> (pulled in by gtest) defines as a macro.
#include "harness/compare/compare.h"
#include "harness/levels/analyse.h"
#include "harness/scenario/counters_group.h"
#include "harness/rig/local_device.h"
#include "probes/counters/session.h"
#include "tests/support/scratch_dir.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gmock/gmock.h>
#include <nlohmann/json.hpp>
#include <gtest/gtest.h>

namespace harness {
namespace {

// A fake sysfs tree: a driver's stats file and a directory of one-number
// files, in a temp directory.
class FakeSysfs : public testing_support::ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    std::filesystem::create_directories(dir_ / "pmu");
    set(1000, 500);
  }

  // Writes atomically (rename), as a driver's file changes between reads.
  void set(std::uint64_t stall, std::uint64_t l2) {
    std::ofstream(dir_ / "stats.tmp") << "cycles: " << stall * 2 << "\nmem_stall_cycles=" << stall << "\n";
    std::filesystem::rename(dir_ / "stats.tmp", dir_ / "stats");
    std::ofstream(dir_ / "pmu/l2.tmp") << l2 << "\n";
    std::filesystem::rename(dir_ / "pmu/l2.tmp", dir_ / "pmu/l2_miss_cycles");
  }

  std::string group_text(int width = 48) const {
    return "name = \"fake-npu\"\n"
           "[sources.stats]\nkind = \"text_file\"\npath = \"" + (dir_ / "stats").string() + "\"\n"
           "width = " + std::to_string(width) + "\n"
           "[sources.pmu]\nkind = \"text_file\"\npath = \"" + (dir_ / "pmu").string() + "\"\n"
           "[counters.CYCLES]\nsource = \"stats\"\nkey = \"cycles\"\n"
           "[counters.MEM_STALL_CYCLES]\nsource = \"stats\"\nkey = \"mem_stall_cycles\"\n"
           "[counters.L2_MISS_CYCLES]\nsource = \"pmu\"\nkey = \"l2_miss_cycles\"\nscale = 2\n"
           "[metrics]\nmem_stall_ratio = \"MEM_STALL_CYCLES / CYCLES\"\n";
  }

  Scenario scenario(const std::vector<std::string>& command, std::int64_t iterations) {
    std::ofstream(dir_ / "fake-npu.toml") << group_text();
    std::string argv;
    for (const std::string& a : command) argv += (argv.empty() ? "\"" : ", \"") + a + "\"";
    return parse("[scenario]\nname = \"fake\"\n[rig]\nname = \"fake-rig\"\n[workload]\ncommand = [" + argv +
                 "]\n[counters]\ngroups = [\"fake-npu.toml\"]\niterations = " + std::to_string(iterations) +
                 "\n[counters.expect]\nmem_stall_ratio_max = 0.6\n");
  }

  // Level 2 around a workload that does nothing (`true`), with `counters`
  // as the [counters] section.
  Scenario scenario_of_true(const std::string& counters) const {
    return parse("[scenario]\nname = \"t\"\n[rig]\nname = \"r\"\n[workload]\ncommand = [\"true\"]\n[counters]\n" +
                 counters);
  }

  Scenario parse(const std::string& text) const {
    Result<Scenario> s = parse_scenario(text, (dir_ / "scenario.toml").string());
    EXPECT_TRUE(s) << s.error().message;
    return s ? *s : Scenario{};
  }
};

// Level 2 as the device runs it (the agent's LocalDevice), in this process.
Status measure(const Scenario& s, Clock& clock, CountersRecording& out, RunProgress* progress = nullptr) {
  LocalDevice device(clock);
  Result<CountersRecording> r = device.measure_counters(s.workload, *s.counters, {}, progress);
  if (!r) return r.error();
  out = std::move(*r);
  return ok();
}

const CounterReading* find(const std::vector<CounterReading>& rs, const std::string& name) {
  for (const CounterReading& r : rs)
    if (r.name == name) return &r;
  return nullptr;
}

// Level 2 in a workload window (IterationPlan::counters): read right before
// the first measured iteration, between the windows over the planned
// iterations, and right after the last; the last window takes the
// iterations a min_duration adds.
TEST(CountersInAWindow, ReadAtTheWindowsEdgesAndBetweenItsWindows) {
  Result<Scenario> s = parse_scenario(
      "[scenario]\nname = \"w\"\n[rig]\nname = \"r\"\n[workload]\nbuiltin = \"gemm\"\nm = 16\nn = 16\nk = 16\n"
      "[counters]\ngroups = [\"linux-host\"]\niterations = 100\nwindows = 3\n",
      std::string(HARNESS_SOURCE_DIR) + "/scenarios/w.toml");
  ASSERT_TRUE(s) << s.error().message;
  MonotonicClock clock;
  LocalDevice device(clock);
  EXPECT_TRUE(device.info().offers("counters.window"));
  IterationPlan plan;
  plan.warmup = 2;
  plan.iterations = 10;
  plan.counters = *s->counters;
  plan.counters->iterations = plan.iterations;
  std::int64_t sent = 0;
  Result<WorkloadWindow> w =
      device.run_workload(s->workload, plan, [&](const IterationBatch& b) { sent += b.start_ns.size(); }, {});
  ASSERT_TRUE(w) << w.error().message;
  ASSERT_TRUE(w->counters);
  const CountersRecording& c = *w->counters;
  EXPECT_EQ(c.iterations, 10);
  EXPECT_EQ(sent, 10);
  EXPECT_EQ(c.windows, 3);
  EXPECT_EQ(c.window_iterations, (std::vector<std::int64_t>{3, 3, 4}));  // window_end(10, 3, k)
  ASSERT_EQ(c.groups.size(), 1u);
  EXPECT_EQ(c.groups[0].name, "linux-host");
  const CounterReading* clock_reading = find(c.readings, "TASK_CLOCK");
  ASSERT_TRUE(clock_reading);
  ASSERT_TRUE(clock_reading->before && clock_reading->after) << clock_reading->unavailable;
  EXPECT_EQ(clock_reading->between.size(), 2u);
  EXPECT_GT(*clock_reading->after, *clock_reading->before);

  // A min_duration runs past the planned iterations: into the last window.
  plan.iterations = 4;
  plan.counters->iterations = 4;
  plan.counters->windows = 2;
  plan.min_duration_s = 0.05;
  Result<WorkloadWindow> longer = device.run_workload(s->workload, plan, [](const IterationBatch&) {}, {});
  ASSERT_TRUE(longer) << longer.error().message;
  ASSERT_TRUE(longer->counters);
  EXPECT_GT(longer->iterations, 4);
  EXPECT_EQ(longer->counters->iterations, longer->iterations);
  ASSERT_EQ(longer->counters->window_iterations.size(), 2u);
  EXPECT_EQ(longer->counters->window_iterations[0], 2);
  EXPECT_EQ(longer->counters->window_iterations[1], longer->iterations - 2);

  // Without counters in the plan, none.
  plan.counters.reset();
  Result<WorkloadWindow> plain = device.run_workload(s->workload, plan, [](const IterationBatch&) {}, {});
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->counters);
}

TEST_F(FakeSysfs, ASessionReadsBeforeAndAfterWhatTheDriverCounted) {
  Result<CounterGroup> g = parse_counter_group(group_text(), "fake.toml");
  ASSERT_TRUE(g) << g.error().message;
  CountersConfig config;
  config.groups.push_back(*g);
  Result<CounterSession> session = CounterSession::open(config.session_sources(), {});
  ASSERT_TRUE(session) << session.error().message;
  session->read_before();
  // The "device" counts on another thread while the workload runs.
  std::thread device([&] {
    for (std::uint64_t i = 1; i <= 50; ++i) set(1000 + i * 10, 500 + i * 3);
  });
  device.join();
  session->read_after();
  const auto& rs = session->readings();
  ASSERT_EQ(rs.size(), 3u);
  EXPECT_EQ(counter_delta(*find(rs, "MEM_STALL_CYCLES")).value, 500.0);
  EXPECT_EQ(counter_delta(*find(rs, "CYCLES")).value, 1000.0);
  EXPECT_EQ(counter_delta(*find(rs, "L2_MISS_CYCLES")).value, 300.0);  // 150 x scale 2
  EXPECT_EQ(find(rs, "MEM_STALL_CYCLES")->width, 48);
  EXPECT_EQ(find(rs, "L2_MISS_CYCLES")->width, 64);
  EXPECT_EQ(find(rs, "CYCLES")->source, "text_file:" + (dir_ / "stats").string());
}

TEST_F(FakeSysfs, ACounterThatWrapsAroundDuringTheRun) {
  const std::uint64_t top = (std::uint64_t{1} << 32) - 100;
  set(top, 0);
  Result<CounterGroup> g = parse_counter_group(group_text(32), "fake.toml");
  CountersConfig config;
  config.groups.push_back(*g);
  Result<CounterSession> session = CounterSession::open(config.session_sources(), {});
  session->read_before();
  std::thread device([&] { set(150, 10); });
  device.join();
  session->read_after();
  CounterDelta d = counter_delta(*find(session->readings(), "MEM_STALL_CYCLES"));
  EXPECT_EQ(d.value, 250.0);
  EXPECT_EQ(d.note, "wrapped around at 32 bits");
}

// Documented choice (scenarios/README.md): a counter whose file vanishes
// mid-run becomes unavailable with the reason; the run and the other
// counters go on.
TEST_F(FakeSysfs, AFileThatVanishesMidRunMakesItsCountersUnavailable) {
  Result<CounterGroup> g = parse_counter_group(group_text(), "fake.toml");
  CountersConfig config;
  config.groups.push_back(*g);
  Result<CounterSession> session = CounterSession::open(config.session_sources(), {});
  session->read_before();
  std::thread driver_unloaded([&] { std::filesystem::remove(dir_ / "stats"); });
  driver_unloaded.join();
  session->read_after();
  CounterDelta d = counter_delta(*find(session->readings(), "MEM_STALL_CYCLES"));
  EXPECT_FALSE(d.value);
  EXPECT_EQ(d.unavailable, "vanished during the run (read 1000 before the workload): cannot read " +
                               (dir_ / "stats").string() + ": No such file or directory");
  EXPECT_EQ(counter_delta(*find(session->readings(), "L2_MISS_CYCLES")).value, 0.0);
}

// The whole level: the workload command runs `iterations` times between the
// readings while a helper thread advances the fake driver's counters.
TEST_F(FakeSysfs, AcquireRunsTheWorkloadBetweenTheReadings) {
  Scenario s = scenario({"sh", "-c", "echo x >> " + (dir_ / "runs").string()}, 3);
  std::atomic<bool> running{true};
  std::uint64_t steps = 0;
  std::thread device([&] {
    while (running) {
      ++steps;
      set(1000 + steps * 10, 500 + steps);
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });
  MonotonicClock clock;
  CountersRecording rec;
  Status st = measure(s, clock, rec);
  running = false;
  device.join();
  ASSERT_TRUE(st) << st.error().message;
  EXPECT_EQ(rec.iterations, 3);
  std::ifstream runs(dir_ / "runs");
  std::string all((std::istreambuf_iterator<char>(runs)), {});
  EXPECT_EQ(all, "x\nx\nx\n");
  Recording full;
  full.counters = rec;
  Analysis a = analyse(s, full, Provenance::measured);
  const Metric* stall = a.find_metric("counter.MEM_STALL_CYCLES");
  ASSERT_TRUE(stall && stall->value) << (stall ? stall->unavailable : "no metric");
  EXPECT_GE(*stall->value, 0);
  EXPECT_EQ(static_cast<std::uint64_t>(*stall->value) % 10, 0u) << "the device steps by 10";
  const Metric* ratio = a.find_metric("counter.mem_stall_ratio");
  ASSERT_TRUE(ratio);
  if (ratio->value) {
    EXPECT_DOUBLE_EQ(*ratio->value, 0.5);  // stalls are half the cycles
  }
}

// Level 2 reports its counted iterations as one step, at most every 250 ms
// and once at the end (the events cross the agent's link).
TEST_F(FakeSysfs, TheCountedIterationsAreReportedAsOneStepAtABoundedRate) {
  std::ofstream(dir_ / "fake-npu.toml") << group_text();
  Result<Scenario> s = parse_scenario("[scenario]\nname = \"fake\"\n[rig]\nname = \"fake-rig\"\n[workload]\n"
                                      "builtin = \"vector_add\"\nelements = 16\n[counters]\n"
                                      "groups = [\"fake-npu.toml\"]\niterations = 1000\n",
                                      (dir_ / "scenario.toml").string());
  ASSERT_TRUE(s) << s.error().message;
  FakeClock clock(1'000'000);  // a millisecond a reading: one per iteration
  RecordedProgress progress;
  CountersRecording rec;
  ASSERT_TRUE(measure(*s, clock, rec, &progress));
  std::vector<std::int64_t> done;
  for (const ProgressEvent& e : progress.events) {
    EXPECT_EQ(e.kind, ProgressEvent::Kind::step);
    EXPECT_EQ(e.level, Level::counters);
    EXPECT_EQ(e.text, "workload");
    EXPECT_EQ(e.step_index, 1);
    EXPECT_EQ(e.step_count, 1);
    EXPECT_EQ(e.planned, 1000);
    EXPECT_EQ(e.counted, "iterations");
    done.push_back(e.done);
  }
  EXPECT_EQ(done, (std::vector<std::int64_t>{0, 250, 500, 750, 1000}));
}

TEST_F(FakeSysfs, AFailingWorkloadAbortsTheLevel) {
  Scenario s = scenario({"sh", "-c", "echo broken >&2; exit 4"}, 2);
  MonotonicClock clock;
  CountersRecording rec;
  Status st = measure(s, clock, rec);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message, "workload sh exit status 4; last output: broken\n");
  EXPECT_EQ(st.error().code, ExitCode::infrastructure);
}

std::string write_group(const std::filesystem::path& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir / name) << text;
  return (dir / name).string();
}

// A vendor tool as the source, configured from a group file: its regular
// expressions come from TOML, it runs before and after the workload.
TEST_F(FakeSysfs, AVendorToolGroupReadsAroundTheWorkload) {
  std::string tool = std::string(HARNESS_SOURCE_DIR) + "/tests/tools/fake-npu-stats";
  std::string state = (dir_ / "tool-state").string();
  std::string group = write_group(dir_, "tool.toml",
      "name = \"npu-tool\"\n[sources.tool]\nkind = \"command\"\ncommand = [\"" + tool + "\", \"" + state +
      "\"]\n[counters.MEM_STALL_CYCLES]\npattern = 'mem_stall_cycles\\s*=\\s*(\\d+)'\n"
      "[counters.L2_MISS_CYCLES]\npattern = 'l2_miss_cycles\\s*=\\s*(\\d+)'\n");
  Scenario s = scenario_of_true("groups = [\"tool.toml\"]\niterations = 2\n");
  MonotonicClock clock;
  CountersRecording rec;
  ASSERT_TRUE(measure(s, clock, rec));
  ASSERT_EQ(rec.readings.size(), 2u);
  EXPECT_EQ(rec.readings[1].name, "MEM_STALL_CYCLES");
  EXPECT_EQ(rec.readings[1].before, 1000000u);
  EXPECT_EQ(counter_delta(rec.readings[1]).value, 5000.0);  // the tool advances one step per call
  EXPECT_EQ(counter_delta(rec.readings[0]).value, 700.0);
  EXPECT_EQ(rec.readings[0].source, "command:" + tool);
}

// Recorded readings as a source: a rig's counters replayed through the
// whole level without the rig.
TEST_F(FakeSysfs, RecordedReadingsReplayTheSeedsDay6Counters) {
  std::ofstream(dir_ / "day6.json") << R"({"snapshots": [
    {"CYCLES": 281474876710656, "MEM_STALL_CYCLES": 1000000000000},
    {"CYCLES": 612000000, "MEM_STALL_CYCLES": 1000412960000}]})";
  write_group(dir_, "rec.toml",
              "name = \"recorded-npu\"\n[sources.rec]\nkind = \"recorded\"\npath = \"" + (dir_ / "day6.json").string() +
                  "\"\nwidth = 48\n[counters.CYCLES]\n[counters.MEM_STALL_CYCLES]\n"
                  "[metrics]\nmem_stall_ratio = \"MEM_STALL_CYCLES / CYCLES\"\n");
  Scenario s = scenario_of_true("groups = [\"rec.toml\"]\n[counters.expect]\nmem_stall_ratio_max = 0.6\n");
  MonotonicClock clock;
  Recording rec;
  rec.counters.emplace();
  ASSERT_TRUE(measure(s, clock, *rec.counters));
  Analysis a = analyse(s, rec, Provenance::measured);
  ASSERT_TRUE(a.find_metric("counter.mem_stall_ratio")->value);
  EXPECT_DOUBLE_EQ(*a.find_metric("counter.mem_stall_ratio")->value, 412960000.0 / 712000000.0);
  ASSERT_FALSE(a.verdicts.empty());
  EXPECT_EQ(a.verdicts[0].check, "counters.expect.mem_stall_ratio_max");
  EXPECT_EQ(a.verdicts[0].status, VerdictStatus::pass);
}

// A one-number counter file "busy" at `start` that the workload advances by
// `by` per iteration (modulo 2^width), read by a group of its own; the
// counters' settings are `counters` (iterations, windows...). Returns the
// recording of level 2 and the scenario it ran.
struct BusyRun {
  Scenario scenario;
  Recording recording;
};
// A shell command that advances the busy file by `by` (modulo 2^width).
std::string busy_step(const std::filesystem::path& dir, std::uint64_t by, int width) {
  const std::string file = (dir / "pmu" / "busy").string();
  return "v=$(cat " + file + "); echo $(( (v + " + std::to_string(by) + ") % " +
         std::to_string(std::uint64_t{1} << width) + " )) > " + file + ".tmp && mv " + file + ".tmp " + file;
}

// The busy file at `start` and its group; the scenario's text up to [counters].
std::string busy_scenario(const std::filesystem::path& dir, std::uint64_t start, std::uint64_t by, int width) {
  std::ofstream(dir / "pmu" / "busy") << start << "\n";
  write_group(dir, "busy.toml",
              "name = \"busy\"\n[sources.pmu]\nkind = \"text_file\"\npath = \"" + (dir / "pmu").string() +
                  "\"\nwidth = " + std::to_string(width) + "\n[counters.BUSY]\nkey = \"busy\"\n");
  return "[scenario]\nname = \"t\"\n[rig]\nname = \"r\"\n[workload]\ncommand = [\"sh\", \"-c\", \"" +
         busy_step(dir, by, width) + "\"]\n";
}

BusyRun run_busy_counter(const std::filesystem::path& dir, std::uint64_t start, std::uint64_t by, int width,
                         const std::string& counters) {
  const std::string text = busy_scenario(dir, start, by, width) + "[counters]\ngroups = [\"busy.toml\"]\n" + counters;
  Result<Scenario> s = parse_scenario(text, (dir / "scenario.toml").string());
  EXPECT_TRUE(s) << s.error().message;
  BusyRun run{*s, {}};
  MonotonicClock clock;
  run.recording.counters.emplace();
  EXPECT_TRUE(measure(run.scenario, clock, *run.recording.counters));
  return run;
}

// A 32-bit counter that the workload itself advances by 2e9 per iteration:
// over 3 iterations it moves 6e9, more than its range, which only readings
// after every iteration can tell.
TEST_F(FakeSysfs, ReadingEveryIterationFollowsACounterAcrossSeveralWraps) {
  auto run = [&](bool each) {
    return run_busy_counter(dir_, 4000000000u, 2000000000u, 32,
                            std::string("iterations = 3\nread_each_iteration = ") + (each ? "true" : "false") + "\n")
        .recording.counters->readings.at(0);
  };
  CounterReading each = run(true);
  EXPECT_EQ(each.between.size(), 2u);
  CounterDelta d = counter_delta(each);
  EXPECT_EQ(d.value, 6e9);
  EXPECT_EQ(d.note, "wrapped around 2 times at 32 bits");
  // Read only around the run, the same counter cannot be told from a small delta.
  CounterReading around = run(false);
  EXPECT_TRUE(around.between.empty());
  EXPECT_NE(counter_delta(around).value, 6e9);
}

// Windows of 2, 2 and 3 iterations: readings between them after the 2nd and
// the 4th, each window's count scaled to the run's 7 iterations.
TEST_F(FakeSysfs, WindowsAreReadAtTheirEnds) {
  BusyRun run = run_busy_counter(dir_, 100, 1, 32, "iterations = 7\nwindows = 3\n");
  EXPECT_EQ(run.recording.counters->windows, 3);
  const CounterReading& busy = run.recording.counters->readings.at(0);
  EXPECT_EQ(busy.before, 100u);
  EXPECT_EQ(busy.between, (std::vector<std::uint64_t>{102, 104}));
  EXPECT_EQ(busy.after, 107u);
  Analysis a = analyse(run.scenario, run.recording, Provenance::measured);
  EXPECT_EQ(*a.find_metric("counter.BUSY")->value, 7);
  ASSERT_TRUE(a.find_samples("counter.BUSY"));
  EXPECT_EQ(a.find_samples("counter.BUSY")->values, (std::vector<double>{7, 7, 7}));
}

// Level 2 with a same-run reference as the runner runs it: through a
// LocalDevice, the reference and the run's seed in the counters' settings
// (acquire_table.cc). The candidate advances the busy counter by
// `candidate_by` an iteration, the reference by `reference_by`; 6 rounds of
// windows of 2 iterations.
struct PairedBusy {
  Scenario scenario;
  Recording recording;
  Analysis analysis;  // with its verdicts against the reference, as the runner stores them
};
PairedBusy run_paired_busy(const std::filesystem::path& dir, std::uint64_t candidate_by, std::uint64_t reference_by) {
  const std::string text = busy_scenario(dir, 100, candidate_by, 32) + "[reference]\ncommand = [\"sh\", \"-c\", \"" +
                           busy_step(dir, reference_by, 32) +
                           "\"]\nrounds = 6\nseed = 7\n[counters]\ngroups = [\"busy.toml\"]\niterations = 12\n";
  Result<Scenario> s = parse_scenario(text, (dir / "scenario.toml").string());
  EXPECT_TRUE(s) << s.error().message;
  PairedBusy run{*s, {}, {}};
  MonotonicClock clock;
  LocalDevice device(clock);
  CountersConfig config = *s->counters;
  config.paired_with = *s->reference;
  std::stop_source stop;
  Result<CountersRecording> r = device.measure_counters(s->workload, config, stop.get_token(), nullptr);
  EXPECT_TRUE(r) << r.error().message;
  if (r) run.recording.counters = *r;
  run.analysis = analyse(run.scenario, run.recording, Provenance::measured);
  add_reference_verdicts(CompareConfig{}, run.analysis);
  return run;
}

const Verdict* find_verdict(const Analysis& a, const std::string& check) {
  for (const Verdict& v : a.verdicts)
    if (v.check == check) return &v;
  return nullptr;
}

// The windows alternate in the order the seed draws, one of each side a
// round; the candidate's metrics are its windows', the reference's
// "reference.<metric>", and each round's ratio a sample of
// "vs_reference.<metric>". A reference doing half the work: every round's
// ratio is 2, and the candidate is regressed against it.
TEST_F(FakeSysfs, AReferenceDoingHalfTheWorkMakesTheCandidateRegressed) {
  PairedBusy run = run_paired_busy(dir_, 2, 1);
  const CountersRecording& rec = *run.recording.counters;
  EXPECT_EQ(rec.iterations, 24);
  EXPECT_EQ(rec.windows, 12);
  EXPECT_EQ(rec.pairing, "random order, seed 7");
  ASSERT_EQ(rec.window_sides.size(), 12u);
  for (int round = 0; round < 6; ++round) {
    const bool first = reference_first(*run.scenario.reference, 7, round);
    EXPECT_EQ(rec.window_sides[2 * round], first ? "reference" : "candidate");
    EXPECT_EQ(rec.window_sides[2 * round + 1], first ? "candidate" : "reference");
  }
  const Analysis& a = run.analysis;
  EXPECT_EQ(a.find_metric("counter.BUSY")->value, 24.0);  // 6 windows x 2 iterations x 2
  EXPECT_EQ(a.find_metric("reference.counter.BUSY")->value, 12.0);
  EXPECT_EQ(a.find_metric("vs_reference.counter.BUSY")->value, 2.0);
  EXPECT_EQ(a.find_metric("reference.counter.BUSY")->source,
            "text_file:" + (dir_ / "pmu").string() +
                ": sum of the reference's 6 windows of the paired rounds (random order, seed 7)");
  ASSERT_TRUE(a.find_samples("vs_reference.counter.BUSY"));
  EXPECT_EQ(a.find_samples("vs_reference.counter.BUSY")->values, std::vector<double>(6, 2.0));
  EXPECT_EQ(a.find_samples("vs_reference.counter.BUSY")->better, Better::lower);
  ASSERT_TRUE(a.find_samples("counter.BUSY"));
  EXPECT_EQ(a.find_samples("counter.BUSY")->values, std::vector<double>(6, 24.0));
  const Verdict* v = find_verdict(a, "reference.counter.BUSY");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->level, Level::counters);
  EXPECT_EQ(v->status, VerdictStatus::fail);
  EXPECT_EQ(v->measured, "+100.0 % (regressed)");
}

// A/A: both sides do the same work, every round's ratio is 1.
TEST_F(FakeSysfs, TheSameWorkOnBothSidesIsUnchanged) {
  PairedBusy run = run_paired_busy(dir_, 1, 1);
  EXPECT_EQ(run.analysis.find_metric("vs_reference.counter.BUSY")->value, 1.0);
  const Verdict* v = find_verdict(run.analysis, "reference.counter.BUSY");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->status, VerdictStatus::pass);
  EXPECT_EQ(v->measured, "+0.0 % (unchanged)");
}

// The recording's JSON keeps whose each window was: a replay (the analysis
// of the stored recording, then the verdicts against the reference, as
// replay_bundle does) gives the same verdicts. A recording older than the
// sides is read as a run without a reference.
TEST_F(FakeSysfs, APairedRecordingReplaysToTheSameVerdicts) {
  PairedBusy run = run_paired_busy(dir_, 2, 1);
  const nlohmann::json stored = run.recording;
  Recording back = stored.get<Recording>();
  Analysis replayed = analyse(run.scenario, back, Provenance::replayed);
  add_reference_verdicts(CompareConfig{}, replayed);
  ASSERT_EQ(replayed.verdicts.size(), run.analysis.verdicts.size());
  for (std::size_t i = 0; i < replayed.verdicts.size(); ++i) {
    EXPECT_EQ(replayed.verdicts[i].check, run.analysis.verdicts[i].check);
    EXPECT_EQ(replayed.verdicts[i].status, run.analysis.verdicts[i].status);
    EXPECT_EQ(replayed.verdicts[i].measured, run.analysis.verdicts[i].measured);
    EXPECT_EQ(replayed.verdicts[i].detail, run.analysis.verdicts[i].detail);
  }
  EXPECT_EQ(replayed.find_metric("vs_reference.counter.BUSY")->provenance, Provenance::replayed);
  nlohmann::json older = stored;
  older["counters"].erase("window_sides");
  older["counters"].erase("pairing");
  Recording old = older.get<Recording>();
  Analysis unpaired = analyse(run.scenario, old, Provenance::replayed);
  EXPECT_EQ(unpaired.find_metric("counter.BUSY")->value, 36.0);  // both sides' counts: nobody knew whose
  EXPECT_FALSE(unpaired.find_metric("reference.counter.BUSY"));
  EXPECT_FALSE(unpaired.find_samples("vs_reference.counter.BUSY"));
}

// Sides that do not fit the windows (a broken or foreign recording) leave the
// level unavailable rather than mixing the two sides' counts.
TEST_F(FakeSysfs, SidesThatDoNotFitTheWindowsAreNotGuessed) {
  PairedBusy run = run_paired_busy(dir_, 2, 1);
  Recording broken = run.recording;
  broken.counters->window_sides[1] = broken.counters->window_sides[0];
  Analysis a = analyse(run.scenario, broken, Provenance::replayed);
  const std::string side = broken.counters->window_sides[0];
  EXPECT_EQ(a.find_metric("counters")->unavailable, "round 1 of the recording has two " + side + " windows");
  EXPECT_FALSE(a.find_metric("counter.BUSY"));
  broken.counters->window_sides.pop_back();
  EXPECT_EQ(analyse(run.scenario, broken, Provenance::replayed).find_metric("counters")->unavailable,
            "the recording's 11 window sides do not fit its 12 windows of 24 iterations");
}

// The real perf path end to end with the shipped Linux group: software
// events count a built-in kernel; hardware events say why they cannot.
TEST(AcquireCounters, TheHostScenarioCountsSoftwareEventsForReal) {
  Result<Scenario> s = load_scenario(std::string(HARNESS_SOURCE_DIR) + "/scenarios/host.toml");
  ASSERT_TRUE(s) << s.error().message;
  s->reference.reset();  // the candidate alone, in [counters] windows
  s->counters->iterations = 3;
  s->counters->windows = 3;
  MonotonicClock clock;
  CountersRecording rec;
  const std::uint64_t t0 = clock.now_ns();
  Status st = measure(*s, clock, rec);
  const double wall_s = static_cast<double>(clock.now_ns() - t0) * 1e-9;
  ASSERT_TRUE(st) << st.error().message;
  Recording full;
  full.counters = rec;
  Analysis a = analyse(*s, full, Provenance::measured);
  const Metric* clock_ns = a.find_metric("counter.TASK_CLOCK");
  ASSERT_TRUE(clock_ns);
  if (!clock_ns->value && clock_ns->unavailable.find("EACCES") != std::string::npos) GTEST_SKIP() << clock_ns->unavailable;
  ASSERT_TRUE(clock_ns->value) << clock_ns->unavailable;
  EXPECT_GT(*clock_ns->value, 0);
  EXPECT_LE(*clock_ns->value, wall_s) << "one thread cannot run longer than the wall clock around it";
  EXPECT_EQ(clock_ns->unit, "s");
  EXPECT_EQ(clock_ns->source, "perf_event:perf: sum of 3 steps read between windows of the iterations, x 1e-09");
  // Each window by its own enabled and running time; the sum is the run's.
  EXPECT_EQ(rec.readings.at(0).enabled_between.size(), 2u);
  const SampleSet* windows = a.find_samples("counter.TASK_CLOCK");
  ASSERT_TRUE(windows);
  ASSERT_EQ(windows->values.size(), 3u);
  EXPECT_NEAR((windows->values[0] + windows->values[1] + windows->values[2]) / 3, *clock_ns->value,
              1e-9 * *clock_ns->value);
  const Metric* cycles = a.find_metric("counter.CYCLES");
  ASSERT_TRUE(cycles);
  if (!cycles->value) {
    EXPECT_EQ(cycles->unavailable.rfind("the kernel refused perf event 'cycles': ", 0), 0u) << cycles->unavailable;
    const Metric* bytes = a.find_metric("counter.bytes");
    ASSERT_TRUE(bytes);
    EXPECT_FALSE(bytes->value);
    EXPECT_EQ(bytes->unavailable.rfind("needs LLC_LOAD_MISSES: the kernel refused perf event 'LLC-load-misses': ", 0),
              0u)
        << bytes->unavailable;
  }
}

// The same with the host scenario's A/A reference: perf's task-clock of the
// same kernel on both sides, alternating in 20 rounds. Real noise, no
// difference: the verdict is unchanged or cannot tell, never regressed (a
// false alarm at the default alpha of 0.05 is at most about 1 run in 40).
TEST(AcquireCounters, AnAANightOfTheHostScenarioIsNeverRegressed) {
  Result<Scenario> s = load_scenario(std::string(HARNESS_SOURCE_DIR) + "/scenarios/host.toml");
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_TRUE(s->reference);
  s->counters->iterations = 200;  // 20 rounds of 10 iterations a side
  MonotonicClock clock;
  CountersConfig config = *s->counters;
  config.paired_with = *s->reference;
  config.paired_with->seed = 1234;
  LocalDevice device(clock);
  Result<CountersRecording> measured = device.measure_counters(s->workload, config, {}, nullptr);
  ASSERT_TRUE(measured) << measured.error().message;
  Recording rec;
  rec.counters = std::move(*measured);
  EXPECT_EQ(rec.counters->windows, 40);
  Analysis a = analyse(*s, rec, Provenance::measured);
  add_reference_verdicts(s->compare.value_or(CompareConfig{}), a);
  const Metric* clock_s = a.find_metric("counter.TASK_CLOCK");
  ASSERT_TRUE(clock_s);
  if (!clock_s->value && clock_s->unavailable.find("EACCES") != std::string::npos) GTEST_SKIP() << clock_s->unavailable;
  ASSERT_TRUE(clock_s->value) << clock_s->unavailable;
  ASSERT_TRUE(a.find_metric("reference.counter.TASK_CLOCK")->value);
  const SampleSet* ratios = a.find_samples("vs_reference.counter.TASK_CLOCK");
  ASSERT_TRUE(ratios);
  EXPECT_EQ(ratios->values.size(), 20u);
  const Verdict* v = find_verdict(a, "reference.counter.TASK_CLOCK");
  ASSERT_TRUE(v);
  EXPECT_NE(v->status, VerdictStatus::fail) << v->measured << ": " << v->detail;
  EXPECT_THAT(v->measured, ::testing::AnyOf(::testing::HasSubstr("(unchanged)"), ::testing::HasSubstr("cannot tell")))
      << v->detail;
}

}  // namespace
}  // namespace harness
