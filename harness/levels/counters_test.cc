#include "harness/levels/counters.h"

#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/levels/analyse.h"

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
  r.scale = 64;
  rec.readings.push_back(r);
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
