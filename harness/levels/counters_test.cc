#include "harness/levels/counters.h"

#include <fstream>
#include <limits>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/levels/analyse.h"
#include "harness/model/metric_catalogue.h"

namespace harness {
namespace {

CounterReading reading(std::uint64_t before, std::uint64_t after, int width = 64) {
  CounterReading r;
  r.name = "C";
  r.source = "test";
  r.width = width;
  r.before = before;
  r.after = after;
  return r;
}

TEST(CounterDeltas, PlainDeltaAndScale) {
  CounterReading r = reading(100, 350);
  r.scale = 64;
  CounterDelta d = counter_delta(r);
  EXPECT_EQ(d.value, 250.0 * 64);
  EXPECT_EQ(d.note, "");
}

TEST(CounterDeltas, WrapAroundAt32And48And64Bits) {
  const std::uint64_t m32 = (std::uint64_t{1} << 32), m48 = (std::uint64_t{1} << 48);
  CounterDelta d32 = counter_delta(reading(m32 - 10, 5, 32));
  EXPECT_EQ(d32.value, 15.0);
  EXPECT_EQ(d32.note, "wrapped around at 32 bits");
  EXPECT_EQ(counter_delta(reading(m48 - 1, 0, 48)).value, 1.0);
  EXPECT_EQ(counter_delta(reading(~std::uint64_t{0} - 99, 900, 64)).value, 1000.0);
}

TEST(CounterDeltas, ACounterThatWentBackwardsIsReportedNotUsed) {
  CounterDelta d = counter_delta(reading(1000, 500, 32));
  EXPECT_FALSE(d.value);
  EXPECT_EQ(d.unavailable,
            "went backwards (1000 -> 500) and a 32-bit wrap-around would mean 4294966796 events: not used "
            "(was the counter reset during the run?)");
  EXPECT_FALSE(counter_delta(reading(1000, 999, 64)).value);
}

TEST(CounterDeltas, ReadingsAfterEachIterationAllowOneWrapPerStep) {
  // A 32-bit counter that moves more than its range over the run.
  CounterReading r = reading(4'000'000'000u, 500'000'000u, 32);
  r.between = {1'000'000'000u, 3'000'000'000u};
  CounterDelta d = counter_delta(r);
  EXPECT_EQ(d.value, 1294967296.0 + 2e9 + 1794967296.0);
  EXPECT_EQ(d.note, "wrapped around 2 times at 32 bits");
  r.between = {1'000'000'000u, 900'000'000u};
  EXPECT_EQ(counter_delta(r).unavailable,
            "went backwards between readings 2 and 3 (1000000000 -> 900000000) and a 32-bit wrap-around would mean "
            "4194967296 events: not used (was the counter reset during the run?)");
}

TEST(CounterDeltas, ValuesWiderThanTheCounterAreRefused) {
  CounterDelta d = counter_delta(reading(5, std::uint64_t{1} << 40, 32));
  EXPECT_FALSE(d.value);
  EXPECT_EQ(d.unavailable, "value 1099511627776 does not fit the declared 32-bit counter width");
}

TEST(CounterDeltas, VanishedMidRunAndNeverRead) {
  CounterReading r = reading(77, 0);
  r.after.reset();
  r.unavailable = "cannot read /sys/x/stats: No such file or directory";
  EXPECT_EQ(counter_delta(r).unavailable,
            "vanished during the run (read 77 before the workload): cannot read /sys/x/stats: No such file or "
            "directory");
  CounterReading never;
  never.unavailable = "the kernel refused perf event 'cycles': No such file or directory (ENOENT)";
  EXPECT_EQ(counter_delta(never).unavailable, never.unavailable);
}

TEST(CounterDeltas, MultiplexedPerfCountersAreScaledByEnabledOverRunning) {
  CounterReading r = reading(1000, 2000);
  r.enabled_before = 100;
  r.enabled_after = 500;   // enabled 400 ns
  r.running_before = 50;
  r.running_after = 250;   // counted 200 ns of them
  CounterDelta d = counter_delta(r);
  EXPECT_EQ(d.value, 2000.0);
  EXPECT_EQ(d.note, "scaled x2 for multiplexing (counted 50 % of the time)");
  r.running_after = 50;
  EXPECT_EQ(counter_delta(r).unavailable,
            "never counted during the run: the kernel did not schedule the event on the PMU (multiplexed out)");
}

TEST(CounterDeltas, EachWindowKeepsItsOwnChangeAndItsOwnMultiplexing) {
  // A 32-bit counter read in three windows, wrapping in the second.
  CounterReading r = reading(4'000'000'000u, 600'000'000u, 32);
  r.between = {4'100'000'000u, 300'000'000u};
  r.scale = 2;
  r.enabled_before = 0, r.running_before = 0;
  r.enabled_between = {100, 300};
  r.running_between = {100, 200};  // the second window counted half its time
  r.enabled_after = 400, r.running_after = 300;
  CounterDelta d = counter_delta(r);
  ASSERT_EQ(d.windows.size(), 3u);
  EXPECT_EQ(d.windows[0], 100e6 * 2);
  EXPECT_EQ(d.windows[1], (4294967296.0 - 4.1e9 + 300e6) * 2 * 2);  // wrapped, then x2 for multiplexing
  EXPECT_EQ(d.windows[2], 300e6 * 2);
  // Without the times between windows, each window takes the run's factor.
  r.enabled_between.clear(), r.running_between.clear();
  EXPECT_EQ(counter_delta(r).windows[0], 100e6 * 2 * (400.0 / 300.0));
  // A window that never counted leaves no windows; the run's value stands.
  r.enabled_between = {100, 300}, r.running_between = {100, 100};
  r.running_after = 200;
  CounterDelta silent = counter_delta(r);
  EXPECT_TRUE(silent.value);
  EXPECT_TRUE(silent.windows.empty());
  // Read around the run only: one step, no windows.
  EXPECT_TRUE(counter_delta(reading(1, 5)).windows.empty());
}

TEST(CounterDeltas, SourcesReportingDeltas) {
  CounterReading r;
  r.delta = 5000;
  r.scale = 2;
  EXPECT_EQ(counter_delta(r).value, 10000.0);
}

TEST(CountersRecordingJson, RoundTripsEveryField) {
  CountersRecording rec;
  rec.iterations = 7;
  CounterReading r = reading(std::uint64_t{1} << 63, (std::uint64_t{1} << 63) + 5, 48);
  r.enabled_before = 1;
  r.enabled_after = 2;
  r.running_before = 3;
  r.running_after = 4;
  r.between = {(std::uint64_t{1} << 63) + 2};
  r.enabled_between = {1};
  r.running_between = {3};
  r.scale = 64;
  rec.readings.push_back(r);
  rec.windows = 2;
  CounterReading d;
  d.name = "D";
  d.delta = 9;
  d.unavailable = "x";
  rec.readings.push_back(d);
  rec.groups.push_back({"npu", "groups/npu.toml", "abc"});
  CountersRecording back = nlohmann::json(rec).get<CountersRecording>();
  EXPECT_EQ(nlohmann::json(back), nlohmann::json(rec));
  EXPECT_EQ(back.readings[0].before, std::uint64_t{1} << 63);  // no rounding through double
  EXPECT_EQ(back.iterations, 7);
  EXPECT_EQ(back.windows, 2);
}

TEST(CounterWindows, ConsecutiveOfNearlyEqualLengthEndingWithTheRun) {
  EXPECT_EQ(window_end(7, 3, 0), 2);
  EXPECT_EQ(window_end(7, 3, 1), 4);
  EXPECT_EQ(window_end(7, 3, 2), 7);
  EXPECT_EQ(window_end(200, 10, 0), 20);
  EXPECT_EQ(window_end(5, 5, 2), 3);
  // A recording's iteration count near the largest integer does not overflow.
  const std::int64_t huge = std::numeric_limits<std::int64_t>::max() - 1;
  EXPECT_EQ(window_end(huge, 2, 1), huge);
  EXPECT_EQ(window_end(huge, 2, 0), huge / 2);
}

Scenario npu_scenario() {
  Result<Scenario> s = load_scenario(std::string(HARNESS_SOURCE_DIR) + "/scenarios/rig-npu-example.toml");
  EXPECT_TRUE(s) << s.error().message;
  return *s;
}

Analysis replay(const Scenario& s, const std::string& fixture) {
  std::ifstream in(std::string(HARNESS_SOURCE_DIR) + "/tests/data/counters/" + fixture + ".json");
  EXPECT_TRUE(in) << fixture;
  Recording rec;
  rec.counters = nlohmann::json::parse(in).get<CountersRecording>();
  return analyse(s, rec, Provenance::replayed);
}

const Verdict* find_verdict(const std::vector<Verdict>& verdicts, const std::string& check) {
  for (const Verdict& v : verdicts)
    if (v.check == check) return &v;
  return nullptr;
}

TEST(CountersAnalysis, CountersDerivedMetricsAndBytesForTheRoofline) {
  Scenario s = npu_scenario();
  Analysis a = replay(s, "seed-day6-pass");
  const Metric* cycles = a.find_metric("counter.CYCLES");
  ASSERT_TRUE(cycles && cycles->value);
  EXPECT_EQ(*cycles->value, 712e6);  // across a 48-bit wrap-around
  EXPECT_EQ(cycles->source, "text_file:/sys/kernel/debug/npu0/pmu_stats: after - before, wrapped around at 48 bits");
  EXPECT_EQ(cycles->provenance, Provenance::replayed);
  const Metric* ratio = a.find_metric("counter.mem_stall_ratio");
  ASSERT_TRUE(ratio && ratio->value);
  EXPECT_DOUBLE_EQ(*ratio->value, 412960000.0 / 712e6);
  EXPECT_EQ(ratio->unit, "1");
  const Metric* bytes = a.find_metric("counter.bytes");
  ASSERT_TRUE(bytes && bytes->value);
  EXPECT_EQ(*bytes->value, (120e6 + 9e6) * 64);
  EXPECT_EQ(bytes->unit, "B");
  EXPECT_EQ(bytes->provenance, Provenance::replayed);
  EXPECT_EQ(bytes->source, "formula bytes = (DDR_READ_LINES + DDR_WRITE_LINES) * 64 (group npu-driver-stats)");
  const Metric* per = a.find_metric("counter.bytes_per_iteration");
  ASSERT_TRUE(per && per->value);
  EXPECT_EQ(*per->value, (120e6 + 9e6) * 64 / 10);  // the recording ran 10 iterations
  EXPECT_EQ(per->unit, "B");
  EXPECT_EQ(per->source, "counter.bytes / 10 iterations");
  const Verdict* v = find_verdict(a.verdicts, "counters.expect.mem_stall_ratio_max");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->status, VerdictStatus::pass);
  EXPECT_EQ(find_verdict(replay(s, "seed-day1-baseline").verdicts, "counters.expect.mem_stall_ratio_max")->status,
            VerdictStatus::fail);
}

// The seed's day-6 recording read in `windows` windows over 5 iterations,
// each counter moving at the same rate throughout, except MEM_STALL_CYCLES,
// whose last window stalls twice as much per iteration.
CountersRecording in_windows(std::int64_t windows) {
  std::ifstream in(std::string(HARNESS_SOURCE_DIR) + "/tests/data/counters/seed-day6-pass.json");
  CountersRecording rec = nlohmann::json::parse(in).get<CountersRecording>();
  rec.iterations = 5;
  rec.windows = windows;
  for (CounterReading& c : rec.readings) {
    const double total = *counter_delta(c).value / c.scale;
    const std::uint64_t mask = (std::uint64_t{1} << c.width) - 1;
    for (std::int64_t k = 0; k + 1 < windows; ++k) {
      double done = total * static_cast<double>(window_end(5, windows, k)) / 5;
      if (c.name == "MEM_STALL_CYCLES") done = total * static_cast<double>(window_end(5, windows, k)) / 6;
      c.between.push_back((*c.before + static_cast<std::uint64_t>(done)) & mask);
    }
  }
  return rec;
}

TEST(CountersAnalysis, ARunReadInWindowsHasASetPerCounterAndFormulaScaledToTheRun) {
  Scenario s = npu_scenario();
  Analysis a;
  CountersRecording rec = in_windows(2);  // windows of 2 and 3 iterations
  analyse_counters(s, &rec, Provenance::measured, a);
  const SampleSet* cycles = a.find_samples("counter.CYCLES");
  ASSERT_TRUE(cycles);
  // Each window's change x 5 iterations / its iterations: the run's rate.
  ASSERT_EQ(cycles->values.size(), 2u);
  EXPECT_NEAR(cycles->values[0], 712e6, 1);  // across the 48-bit wrap-around
  EXPECT_NEAR(cycles->values[1], 712e6, 1);
  EXPECT_EQ(cycles->unit, "cycles");
  EXPECT_EQ(cycles->better, Better::lower);
  EXPECT_EQ(cycles->provenance, Provenance::measured);
  EXPECT_EQ(cycles->source,
            "text_file:/sys/kernel/debug/npu0/pmu_stats: 2 windows of the 5 iterations in the order they ran, each "
            "window's change x iterations / its iterations");
  EXPECT_EQ(*a.find_metric("counter.CYCLES")->value, 712e6);  // the run's value is the sum, as before
  const SampleSet* stalls = a.find_samples("counter.MEM_STALL_CYCLES");
  ASSERT_TRUE(stalls);
  EXPECT_NEAR(stalls->values[0], 412960000.0 * 5 / 6, 1);  // 2/6 of the stalls in 2 of 5 iterations
  EXPECT_NEAR(stalls->values[1], 412960000.0 * 4 / 6 * 5 / 3, 1);
  // A formula is evaluated in each window.
  const SampleSet* ratio = a.find_samples("counter.mem_stall_ratio");
  ASSERT_TRUE(ratio);
  EXPECT_NEAR(ratio->values[0], stalls->values[0] / 712e6, 1e-6);
  EXPECT_NEAR(ratio->values[1], stalls->values[1] / 712e6, 1e-6);
  EXPECT_EQ(ratio->unit, "1");
  EXPECT_TRUE(a.find_samples("counter.bytes"));
  EXPECT_FALSE(a.find_samples("counter.bytes_per_iteration"));
  EXPECT_TRUE(catalogue_violations(a).empty());

  // Read around the run only (the recorded seed), or with readings that do
  // not match the windows recorded: metrics, no sets.
  Analysis around = replay(s, "seed-day6-pass");
  EXPECT_TRUE(around.samples.empty());
  CountersRecording odd = in_windows(2);
  odd.windows = 3;
  Analysis mismatched;
  analyse_counters(s, &odd, Provenance::measured, mismatched);
  EXPECT_TRUE(mismatched.samples.empty());
  EXPECT_EQ(*mismatched.find_metric("counter.CYCLES")->value, 712e6);
  // A recording older than `windows` (0) read after every iteration: one per iteration.
  CountersRecording each = in_windows(5);
  each.windows = 0;
  Analysis old;
  analyse_counters(s, &each, Provenance::replayed, old);
  ASSERT_TRUE(old.find_samples("counter.CYCLES"));
  EXPECT_EQ(old.find_samples("counter.CYCLES")->values.size(), 5u);
}

// Level 2 read in level 4's window: the windows end where the device read
// them (the last runs on to the window's min_duration), so their lengths are
// recorded and each window is scaled by its own.
TEST(CountersAnalysis, WindowsOfRecordedLengthsAreEachScaledByTheirOwn) {
  Scenario s = npu_scenario();
  std::ifstream in(std::string(HARNESS_SOURCE_DIR) + "/tests/data/counters/seed-day6-pass.json");
  CountersRecording rec = nlohmann::json::parse(in).get<CountersRecording>();
  rec.iterations = 5;
  rec.windows = 2;
  rec.window = "latency";
  rec.window_condition = "none";
  rec.window_iterations = {1, 4};  // window_end would say 2 and 3
  for (CounterReading& c : rec.readings) {
    const double total = *counter_delta(c).value / c.scale;
    const std::uint64_t mask = (std::uint64_t{1} << c.width) - 1;
    c.between.push_back((*c.before + static_cast<std::uint64_t>(total / 5)) & mask);
  }
  Analysis a;
  analyse_counters(s, &rec, Provenance::measured, a);
  const SampleSet* cycles = a.find_samples("counter.CYCLES");
  ASSERT_TRUE(cycles);
  ASSERT_EQ(cycles->values.size(), 2u);
  EXPECT_NEAR(cycles->values[0], 712e6, 1e3);  // the same rate in both: 1/5 of it in 1 of 5 iterations
  EXPECT_NEAR(cycles->values[1], 712e6, 1e3);
  EXPECT_EQ(*a.find_metric("counter.CYCLES")->value, 712e6);

  CountersRecording back = nlohmann::json(rec).get<CountersRecording>();
  EXPECT_EQ(back.window, "latency");
  EXPECT_EQ(back.window_condition, "none");
  EXPECT_EQ(back.window_iterations, (std::vector<std::int64_t>{1, 4}));

  // Lengths that are not the windows' are not used: metrics, no sets.
  for (std::vector<std::int64_t> wrong : {std::vector<std::int64_t>{1, 3}, {5}, {-1, 6}}) {
    CountersRecording odd = rec;
    odd.window_iterations = wrong;
    Analysis b;
    analyse_counters(s, &odd, Provenance::measured, b);
    EXPECT_TRUE(b.samples.empty()) << wrong.size();
    EXPECT_EQ(*b.find_metric("counter.CYCLES")->value, 712e6);
  }
}

TEST(CountersAnalysis, BaselineExpectationsNeedABaselineInAPlainRun) {
  Analysis a = replay(npu_scenario(), "seed-day6-pass");
  const Verdict* v = find_verdict(a.verdicts, "counters.expect.baseline.MEM_STALL_CYCLES_drop_min");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->status, VerdictStatus::unavailable);
  EXPECT_EQ(v->measured, "unavailable: needs a baseline");
  EXPECT_EQ(status_from_verdicts(a.verdicts), RunStatus::passed);
}

TEST(CountersAnalysis, MissingCountersMakeDerivedMetricsUnavailableWithTheReason) {
  Scenario s = npu_scenario();
  Recording rec;
  rec.counters.emplace();
  CounterReading stall = reading(10, 20, 48);
  stall.name = "MEM_STALL_CYCLES";
  CounterReading cycles;
  cycles.name = "CYCLES";
  cycles.unavailable = "no key 'cycles' in /sys/kernel/debug/npu0/pmu_stats";
  rec.counters->readings = {stall, cycles};
  Analysis a = analyse(s, rec, Provenance::measured);
  const Metric* ratio = a.find_metric("counter.mem_stall_ratio");
  ASSERT_TRUE(ratio);
  EXPECT_FALSE(ratio->value);
  EXPECT_EQ(ratio->unavailable, "needs CYCLES: no key 'cycles' in /sys/kernel/debug/npu0/pmu_stats");
  const Verdict* v = find_verdict(a.verdicts, "counters.expect.mem_stall_ratio_max");
  EXPECT_EQ(v->status, VerdictStatus::unavailable);
  EXPECT_EQ(a.find_metric("counter.bytes")->unavailable, "needs DDR_READ_LINES: not read in this run");
}

TEST(CountersAnalysis, AReplaySaysWhenAGroupChangedSinceTheRecording) {
  Scenario s = npu_scenario();
  Recording rec;
  rec.counters.emplace();
  rec.counters->groups.push_back({"npu-driver-stats", "old/npu-driver-stats.toml", std::string(64, 'a')});
  Analysis a = analyse(s, rec, Provenance::replayed);
  ASSERT_EQ(a.hints.size(), 1u);
  EXPECT_EQ(a.hints[0], "counter group npu-driver-stats changed since this run was recorded "
                        "(old/npu-driver-stats.toml had sha256 aaaaaaaaaaaa, " + s.counters->groups[0].path + " has " +
                            s.counters->groups[0].sha256.substr(0, 12) + "): its derived metrics use the current formulas");
  rec.counters->groups[0].sha256 = s.counters->groups[0].sha256;
  EXPECT_TRUE(analyse(s, rec, Provenance::replayed).hints.empty());
}

TEST(CountersAnalysis, BytesForLevelOneComeFromTheGroupsBytesFormula) {
  Scenario s = npu_scenario();
  std::ifstream in(std::string(HARNESS_SOURCE_DIR) + "/tests/data/counters/seed-day6-pass.json");
  CountersRecording rec = nlohmann::json::parse(in).get<CountersRecording>();
  std::optional<Metric> bytes = counter_bytes_per_iteration(s, &rec, Provenance::measured);
  ASSERT_TRUE(bytes && bytes->value);
  EXPECT_EQ(*bytes->value, 129e6 * 64 / 10);
  EXPECT_EQ(bytes->provenance, Provenance::measured);
  rec.readings.clear();
  rec.unavailable = "no counter source";
  bytes = counter_bytes_per_iteration(s, &rec, Provenance::measured);
  ASSERT_TRUE(bytes);
  EXPECT_FALSE(bytes->value);
  EXPECT_EQ(bytes->unavailable, "needs DDR_READ_LINES: no counter source");
  s.counters->groups[0].metrics.clear();
  EXPECT_FALSE(counter_bytes_per_iteration(s, &rec, Provenance::measured));
}

// The seed's pass example: MEM_STALL_CYCLES drops >= 50 % against the
// baseline and L2_MISS_CYCLES drops with it.
// Level 2 read in level 4's paired blocks, each block by a session of its
// own: two rounds (candidate first, then reference first) of 4 iterations a
// block, CYCLES and MEM_STALL_CYCLES as each block's own before and after.
CounterReading named(const std::string& name, std::uint64_t before, std::uint64_t after) {
  CounterReading r = reading(before, after);
  r.name = name;
  r.source = "text_file:/sys/kernel/debug/npu0/pmu_stats";
  r.unit = "cycles";
  return r;
}
CountersRecording in_blocks() {
  CountersRecording rec;
  rec.window = "latency";
  rec.window_condition = "none";
  rec.pairing = "random order, seed 7";
  rec.iterations = 16;
  auto block = [&](int round, const std::string& side, std::uint64_t cycles, std::uint64_t stalls) {
    rec.blocks.push_back({round, side, 4, {named("CYCLES", 1000, 1000 + cycles), named("MEM_STALL_CYCLES", 7, 7 + stalls)}});
  };
  block(0, "candidate", 400, 100);
  block(0, "reference", 200, 50);
  block(1, "reference", 100, 50);
  block(1, "candidate", 800, 100);
  return rec;
}

TEST(CountersRecordingJson, BlocksRoundTripWithTheirOwnReadings) {
  CountersRecording rec = in_blocks();
  rec.blocks[1].readings[0].enabled_before = 1;
  rec.blocks[1].readings[0].running_after = 9;
  const nlohmann::json j = rec;
  EXPECT_EQ(j["blocks"][3]["side"], "candidate");
  EXPECT_EQ(j["blocks"][3]["round"], 1);
  EXPECT_EQ(j["blocks"][3]["readings"][0]["after"], 1800);
  EXPECT_EQ(j["pairing"], "random order, seed 7");
  EXPECT_FALSE(j.contains("window_sides"));
  EXPECT_EQ(nlohmann::json(j.get<CountersRecording>()), j);
  // A recording without blocks writes none (older recordings stay as they were).
  EXPECT_FALSE(nlohmann::json(CountersRecording{}).contains("blocks"));
}

TEST(CountersAnalysis, BlocksOfLevelFoursPairedRoundsArePairedByRound) {
  Scenario s = npu_scenario();
  Analysis a;
  const CountersRecording rec = in_blocks();
  analyse_counters(s, &rec, Provenance::measured, a);
  // Each side's blocks summed: the candidate 400 + 800, the reference 200 + 100.
  ASSERT_TRUE(a.find_metric("counter.CYCLES"));
  EXPECT_EQ(*a.find_metric("counter.CYCLES")->value, 1200);
  EXPECT_EQ(a.find_metric("counter.CYCLES")->source,
            "text_file:/sys/kernel/debug/npu0/pmu_stats: sum of the candidate's 2 blocks of level 4's paired rounds, "
            "each read by its own session (random order, seed 7)");
  EXPECT_EQ(*a.find_metric("reference.counter.CYCLES")->value, 300);
  // Per round, candidate / reference per iteration: 100 / 50 and 200 / 25.
  const SampleSet* ratios = a.find_samples("vs_reference.counter.CYCLES");
  ASSERT_TRUE(ratios);
  EXPECT_EQ(ratios->values, (std::vector<double>{2, 8}));
  EXPECT_NEAR(*a.find_metric("vs_reference.counter.CYCLES")->value, 4, 1e-12);  // sqrt(2 x 8)
  // The candidate's blocks as its sample set, each scaled to its 8 iterations.
  ASSERT_TRUE(a.find_samples("counter.CYCLES"));
  EXPECT_EQ(a.find_samples("counter.CYCLES")->values, (std::vector<double>{800, 1600}));
  // A formula over each side's blocks and per round: 100/400 vs 50/200, 100/800 vs 50/100.
  EXPECT_NEAR(*a.find_metric("counter.mem_stall_ratio")->value, 200.0 / 1200, 1e-12);
  EXPECT_NEAR(*a.find_metric("reference.counter.mem_stall_ratio")->value, 100.0 / 300, 1e-12);
  ASSERT_TRUE(a.find_samples("vs_reference.counter.mem_stall_ratio"));
  EXPECT_EQ(a.find_samples("vs_reference.counter.mem_stall_ratio")->values, (std::vector<double>{1, 0.25}));
  EXPECT_NEAR(*a.find_metric("vs_reference.counter.mem_stall_ratio")->value, 0.5, 1e-12);
  EXPECT_EQ(a.find_metric("reference.counter.mem_stall_ratio")->source,
            "formula mem_stall_ratio = MEM_STALL_CYCLES / CYCLES (group npu-driver-stats) over the reference's blocks");
  // A counter the blocks did not read is unavailable with its reason.
  EXPECT_EQ(a.find_metric("counter.l2_miss_rate")->unavailable, "needs L2_MISS: not read in this run");
  EXPECT_TRUE(catalogue_violations(a).empty());
}

TEST(CountersAnalysis, EachBlockIsScaledByItsOwnMultiplexingAndItsFaultsNamed) {
  Scenario s = npu_scenario();
  CountersRecording rec = in_blocks();
  CounterReading& last = rec.blocks[3].readings[0];  // counted half of its block: 800 x 2
  last.enabled_before = 0, last.enabled_after = 100, last.running_before = 0, last.running_after = 50;
  Analysis a;
  analyse_counters(s, &rec, Provenance::measured, a);
  EXPECT_EQ(*a.find_metric("counter.CYCLES")->value, 2000);
  EXPECT_EQ(a.find_samples("vs_reference.counter.CYCLES")->values, (std::vector<double>{2, 16}));
  EXPECT_NE(a.find_metric("counter.CYCLES")->source.find("block 4: scaled x2 for multiplexing"), std::string::npos)
      << a.find_metric("counter.CYCLES")->source;
  // A block whose counter went backwards makes the counter unavailable, naming the block.
  rec.blocks[2].readings[1].after = 1;
  Analysis broken;
  analyse_counters(s, &rec, Provenance::measured, broken);
  EXPECT_EQ(broken.find_metric("counter.MEM_STALL_CYCLES")->unavailable.rfind("block 3 (round 2, reference): went backwards", 0), 0u)
      << broken.find_metric("counter.MEM_STALL_CYCLES")->unavailable;
  EXPECT_TRUE(broken.find_metric("counter.CYCLES")->value);
}

TEST(CountersAnalysis, BlocksThatDoNotMakeRoundsAreNotGuessed) {
  Scenario s = npu_scenario();
  auto why = [&](const CountersRecording& rec) {
    Analysis a;
    analyse_counters(s, &rec, Provenance::replayed, a);
    EXPECT_FALSE(a.find_metric("counter.CYCLES"));
    return a.find_metric("counters")->unavailable;
  };
  CountersRecording odd = in_blocks();
  odd.blocks.pop_back();
  EXPECT_EQ(why(odd), "the recording's 3 counter blocks do not make whole rounds");
  CountersRecording twice = in_blocks();
  twice.blocks[1].side = "candidate";
  EXPECT_EQ(why(twice), "round 1 of the recording has two candidate blocks");
  CountersRecording shuffled = in_blocks();
  std::swap(shuffled.blocks[1], shuffled.blocks[2]);
  EXPECT_EQ(why(shuffled), "the recording's counter block 2 is round 2 of 4 iterations, not round 1");
}

TEST(CountersBaseline, TheSeedsPassExamplePasses) {
  Scenario s = npu_scenario();
  std::vector<Verdict> v =
      evaluate_counters_baseline(*s.counters, replay(s, "seed-day1-baseline"), replay(s, "seed-day6-pass"));
  ASSERT_EQ(v.size(), 3u);
  for (const Verdict& x : v) EXPECT_EQ(x.status, VerdictStatus::pass) << x.check << ": " << x.detail;
  const Verdict* drop = find_verdict(v, "counters.expect.baseline.MEM_STALL_CYCLES_drop_min");
  ASSERT_TRUE(drop);
  EXPECT_EQ(drop->expected, ">= 50 % drop against the baseline");
  EXPECT_EQ(drop->measured, "MEM_STALL_CYCLES dropped 61.7 % (1.079e+09 -> 4.13e+08)");
  const Verdict* follows = find_verdict(v, "counters.expect.baseline.L2_MISS_CYCLES_follows");
  EXPECT_EQ(follows->measured,
            "L2_MISS_CYCLES dropped 64.3 % (4.2e+08 -> 1.5e+08); MEM_STALL_CYCLES dropped 61.7 % "
            "(1.079e+09 -> 4.13e+08)");
}

TEST(CountersBaseline, L2MissRisingFailsNamingBothCounters) {
  Scenario s = npu_scenario();
  std::vector<Verdict> v =
      evaluate_counters_baseline(*s.counters, replay(s, "seed-day1-baseline"), replay(s, "seed-day6-l2-rises"));
  const Verdict* follows = find_verdict(v, "counters.expect.baseline.L2_MISS_CYCLES_follows");
  ASSERT_TRUE(follows);
  EXPECT_EQ(follows->status, VerdictStatus::fail);
  EXPECT_EQ(follows->expected, "drops when MEM_STALL_CYCLES drops");
  EXPECT_EQ(follows->detail,
            "L2_MISS_CYCLES rose 7.14 % (4.2e+08 -> 4.5e+08) while MEM_STALL_CYCLES dropped 61.7 % "
            "(1.079e+09 -> 4.13e+08): expected L2_MISS_CYCLES to drop with MEM_STALL_CYCLES (" +
                std::string(HARNESS_SOURCE_DIR) + "/scenarios/rig-npu-example.toml:37:26)");
  EXPECT_EQ(find_verdict(v, "counters.expect.baseline.MEM_STALL_CYCLES_drop_min")->status, VerdictStatus::pass);
}

TEST(CountersBaseline, AnInsufficientDropAndMissingCounters) {
  Scenario s = npu_scenario();
  // Against itself: nothing dropped.
  Analysis day6 = replay(s, "seed-day6-pass");
  std::vector<Verdict> v = evaluate_counters_baseline(*s.counters, day6, day6);
  const Verdict* drop = find_verdict(v, "counters.expect.baseline.MEM_STALL_CYCLES_drop_min");
  EXPECT_EQ(drop->status, VerdictStatus::fail);
  EXPECT_EQ(drop->detail, "MEM_STALL_CYCLES did not change (4.13e+08 -> 4.13e+08); expected a drop of at least 50 % (" +
                              std::string(HARNESS_SOURCE_DIR) + "/scenarios/rig-npu-example.toml:36:29)");
  const Verdict* follows = find_verdict(v, "counters.expect.baseline.L2_MISS_CYCLES_follows");
  EXPECT_EQ(follows->status, VerdictStatus::pass);
  EXPECT_EQ(follows->detail, "MEM_STALL_CYCLES did not drop, so L2_MISS_CYCLES is not required to");
  Analysis empty;
  v = evaluate_counters_baseline(*s.counters, empty, day6);
  EXPECT_EQ(v[0].status, VerdictStatus::unavailable);
  EXPECT_EQ(v[0].measured, "unavailable: baseline has no ALU_STALL_CYCLES");
}

}  // namespace
}  // namespace harness
